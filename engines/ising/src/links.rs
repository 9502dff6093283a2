//! The paper's 13 translation-averaged link correlators.
