//! props (in progress).
