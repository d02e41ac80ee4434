//! A published claim checked against measured numbers.
//!
//! The simulators exist to show that stoic's decisions reproduce known
//! effects; each check says what was claimed, whether it holds here, and the
//! numbers it was judged on, so the CLI can print it and a test can assert it.

use std::fmt;

/// One checked claim.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// The claim, in words.
    pub claim: String,
    /// Whether the measurements support it.
    pub holds: bool,
    /// The measurements it was judged on.
    pub measured: String,
}

impl Finding {
    /// A finding for `claim`.
    pub fn new(claim: impl Into<String>, holds: bool, measured: impl Into<String>) -> Self {
        Finding {
            claim: claim.into(),
            holds,
            measured: measured.into(),
        }
    }

    /// A finding that could not be judged because the sweep lacks a point.
    pub fn missing(claim: impl Into<String>, what: &str) -> Self {
        Finding::new(
            claim,
            false,
            format!("not measured: the sweep has no {what}"),
        )
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = if self.holds { "holds " } else { "FAILS " };
        write!(f, "[{mark}] {} ({})", self.claim, self.measured)
    }
}

/// A least-squares line `y = intercept + slope * x` and its coefficient of
/// determination, to judge "grows linearly" on measured points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineFit {
    /// Growth of `y` per unit of `x`.
    pub slope: f64,
    /// `y` at `x = 0`.
    pub intercept: f64,
    /// R², the share of the variance of `y` the line explains (1 = exact).
    pub r2: f64,
}

/// The least-squares line through `points`; `None` with fewer than two
/// distinct `x`.
#[must_use]
pub fn line_fit(points: &[(f64, f64)]) -> Option<LineFit> {
    if points.len() < 2 {
        return None;
    }
    #[allow(clippy::cast_precision_loss)] // a handful of points
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = points.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    let syy: f64 = points.iter().map(|(_, y)| (y - my).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let r2 = if syy > 0.0 {
        sxy * sxy / (sxx * syy)
    } else {
        1.0
    };
    Some(LineFit {
        slope,
        intercept: my - slope * mx,
        r2,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_recovers_a_line_and_rejects_a_curve() {
        let line: Vec<(f64, f64)> = (1..10)
            .map(|x| (f64::from(x), 3.0 + 2.0 * f64::from(x)))
            .collect();
        let fit = line_fit(&line).unwrap();
        assert!((fit.slope - 2.0).abs() < 1e-9 && (fit.intercept - 3.0).abs() < 1e-9);
        assert!((fit.r2 - 1.0).abs() < 1e-12);
        let curve: Vec<(f64, f64)> = (1..10)
            .map(|x| (f64::from(x), f64::from(x).exp()))
            .collect();
        assert!(line_fit(&curve).unwrap().r2 < 0.9);
        assert_eq!(line_fit(&[(1.0, 1.0)]), None);
    }
}
