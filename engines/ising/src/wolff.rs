//! Wolff cluster updates for K = 0.
