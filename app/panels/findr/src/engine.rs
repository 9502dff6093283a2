//! The FINDR engine API the panel uses, gathered in one place.

pub use benchtop_findr::load::{load_trials, save_npz};
pub use benchtop_findr::model::ModelConfig;
pub use benchtop_findr::pipeline::{AnalysisParams, FindrParams, fit};
pub use benchtop_findr::train::TrainParams;
