//! qed (in progress).
