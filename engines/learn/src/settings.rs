//! Range checks of training settings, each error naming the key (`epochs`, `learning_rate`, …)
//! as the engines' `validate` functions report it.

use benchtop_compute::ComputeError;

/// `value` must be a whole number in `range`.
pub fn whole_in(
    key: &str,
    value: usize,
    range: std::ops::RangeInclusive<usize>,
) -> Result<(), ComputeError> {
    if range.contains(&value) {
        Ok(())
    } else {
        Err(ComputeError::invalid(
            key,
            format!("choose {} to {}", range.start(), range.end()),
        ))
    }
}

/// `value` must be finite and greater than 0.
pub fn positive(key: &str, value: f64) -> Result<(), ComputeError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(ComputeError::invalid(key, "must be finite and > 0"))
    }
}

/// `value` must be finite and at least 0.
pub fn non_negative(key: &str, value: f64) -> Result<(), ComputeError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(ComputeError::invalid(key, "must be finite and ≥ 0"))
    }
}

/// The settings of a mini-batch training loop: `epochs` and `batch_size` in 1 to `max_epochs`
/// and 1 to `max_batch`, and a positive learning rate.
pub fn training(
    epochs: usize,
    max_epochs: usize,
    batch_size: usize,
    max_batch: usize,
    learning_rate: f64,
) -> Result<(), ComputeError> {
    whole_in("epochs", epochs, 1..=max_epochs)?;
    whole_in("batch_size", batch_size, 1..=max_batch)?;
    positive("learning_rate", learning_rate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_key_and_the_range() {
        assert!(training(10, 100, 4, 64, 1e-3).is_ok());
        let error = training(0, 100, 4, 64, 1e-3).unwrap_err().to_string();
        assert!(
            error.contains("epochs") && error.contains("1 to 100"),
            "{error}"
        );
        let error = training(10, 100, 65, 64, 1e-3).unwrap_err().to_string();
        assert!(error.contains("batch_size"), "{error}");
        let error = training(10, 100, 4, 64, f64::NAN).unwrap_err().to_string();
        assert!(error.contains("learning_rate"), "{error}");
        assert!(non_negative("weight_decay", 0.0).is_ok());
        assert!(non_negative("weight_decay", -1.0).is_err());
    }
}
