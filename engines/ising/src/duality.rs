//! Neural duality discovery (Gupta, Ferrari, Iqbal, ICML 2025).
