//! Per-configuration observables and their summaries with error bars.
