//! Spin-spin correlation function G(r) via FFT.
