//! Benchtop app.
