//! sa (in progress).
