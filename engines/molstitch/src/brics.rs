//! brics (in progress).
