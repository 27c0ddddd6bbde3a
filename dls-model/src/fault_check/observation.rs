//! What one iterate of a checked loop yields, and the most predictors a regression check takes.

/// The most predictors a regression check takes.
///
/// ```
/// use dls_model::fault_check::{Observation, MAX_PREDICTORS};
/// assert_eq!(Observation::row(&[1.0; MAX_PREDICTORS], 0.0).predictors(), MAX_PREDICTORS);
/// ```
pub const MAX_PREDICTORS: usize = 8;

/// What one iterate of a checked loop yields: a value (the ANOVA check), or a row of predictors
/// and a response (the regression check, Wegman c. 2000 §3.3).
///
/// ```
/// use dls_model::fault_check::Observation;
/// let v: Observation = 2.5.into();
/// let r = Observation::row(&[1.0, 2.0], 3.0);
/// assert_eq!((v.predictors(), r.predictors()), (0, 2));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observation {
    x: [f64; MAX_PREDICTORS],
    p: u8,
    y: f64,
}

impl Observation {
    /// A value for the ANOVA check.
    pub fn value(y: f64) -> Observation {
        Observation {
            x: [0.0; MAX_PREDICTORS],
            p: 0,
            y,
        }
    }

    /// A row (predictors `x`, response `y`) for the regression check; at most
    /// [`MAX_PREDICTORS`] predictors (more panic).
    pub fn row(x: &[f64], y: f64) -> Observation {
        assert!(
            !x.is_empty() && x.len() <= MAX_PREDICTORS,
            "a regression check takes 1 to {MAX_PREDICTORS} predictors, not {}",
            x.len()
        );
        let mut row = [0.0; MAX_PREDICTORS];
        row[..x.len()].copy_from_slice(x);
        Observation {
            x: row,
            p: x.len() as u8,
            y,
        }
    }

    /// Number of predictors (0 for a value).
    pub fn predictors(&self) -> usize {
        usize::from(self.p)
    }

    /// The predictors of a row (empty for a value).
    ///
    /// ```
    /// use dls_model::fault_check::Observation;
    /// assert_eq!(Observation::row(&[1.0, 2.0], 3.0).x(), &[1.0, 2.0]);
    /// assert!(Observation::value(2.5).x().is_empty());
    /// ```
    pub fn x(&self) -> &[f64] {
        &self.x[..self.predictors()]
    }

    /// The value, or a row's response.
    ///
    /// ```
    /// use dls_model::fault_check::Observation;
    /// assert_eq!(Observation::row(&[1.0], 3.0).y(), 3.0);
    /// assert_eq!(Observation::from(2.5).y(), 2.5);
    /// ```
    pub fn y(&self) -> f64 {
        self.y
    }
}

impl From<f64> for Observation {
    fn from(y: f64) -> Observation {
        Observation::value(y)
    }
}

impl<const N: usize> From<([f64; N], f64)> for Observation {
    fn from((x, y): ([f64; N], f64)) -> Observation {
        Observation::row(&x, y)
    }
}
