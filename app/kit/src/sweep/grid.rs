//! Grids of parameter values: linear, logarithmic, or an explicit list.

use serde::{Deserialize, Serialize};

/// How a range is spaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Spacing {
    /// Equal steps.
    #[default]
    Linear,
    /// Equal ratios (both ends must be positive).
    Log,
}

/// The values of one swept parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum GridSpec {
    /// `count` values from `start` to `end` inclusive.
    Range {
        /// First value.
        start: f64,
        /// Last value.
        end: f64,
        /// How many values (≥ 1).
        count: u32,
        /// Linear or logarithmic.
        spacing: Spacing,
    },
    /// Exactly these values.
    List(Vec<f64>),
}

/// The most values one axis may have (a sweep's points are bounded again as a whole).
pub const MAX_GRID_VALUES: usize = 10_000;

impl GridSpec {
    /// How many values the grid has, without making them.
    pub fn len(&self) -> usize {
        match self {
            Self::List(values) => values.len(),
            Self::Range { count, .. } => *count as usize,
        }
    }

    /// Whether the grid has no values (never valid).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values, or why the grid is invalid (including more than [`MAX_GRID_VALUES`]).
    pub fn values(&self) -> Result<Vec<f64>, String> {
        if self.len() > MAX_GRID_VALUES {
            return Err(format!(
                "{} values; an axis has at most {MAX_GRID_VALUES}",
                self.len()
            ));
        }
        match self {
            Self::List(values) => {
                if values.is_empty() {
                    return Err("the list of values is empty".to_owned());
                }
                if values.iter().any(|v| !v.is_finite()) {
                    return Err("the list holds a value that is not a finite number".to_owned());
                }
                Ok(values.clone())
            }
            &Self::Range {
                start,
                end,
                count,
                spacing,
            } => {
                if !start.is_finite() || !end.is_finite() {
                    return Err("the range ends must be finite numbers".to_owned());
                }
                if count == 0 {
                    return Err("a range needs at least one value".to_owned());
                }
                if count == 1 {
                    return Ok(vec![start]);
                }
                let steps = f64::from(count - 1);
                match spacing {
                    Spacing::Linear => Ok((0..count)
                        .map(|i| start + (end - start) * f64::from(i) / steps)
                        .collect()),
                    Spacing::Log => {
                        if start <= 0.0 || end <= 0.0 {
                            return Err("a logarithmic range needs positive ends".to_owned());
                        }
                        let (a, b) = (start.ln(), end.ln());
                        Ok((0..count)
                            .map(|i| (a + (b - a) * f64::from(i) / steps).exp())
                            .collect())
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_log_and_list() {
        let linear = GridSpec::Range {
            start: 0.1,
            end: 0.8,
            count: 8,
            spacing: Spacing::Linear,
        };
        let values = linear.values().unwrap();
        assert_eq!(values.len(), 8);
        assert!((values[7] - 0.8).abs() < 1e-12 && (values[1] - 0.2).abs() < 1e-12);
        let log = GridSpec::Range {
            start: 1.0,
            end: 100.0,
            count: 3,
            spacing: Spacing::Log,
        };
        let values = log.values().unwrap();
        assert!((values[1] - 10.0).abs() < 1e-9);
        assert!(
            GridSpec::Range {
                start: 0.0,
                end: 1.0,
                count: 3,
                spacing: Spacing::Log
            }
            .values()
            .is_err()
        );
        assert!(GridSpec::List(vec![1.0, f64::NAN]).values().is_err());
        assert_eq!(
            GridSpec::List(vec![16.0, 32.0]).values().unwrap(),
            vec![16.0, 32.0]
        );
    }
}
