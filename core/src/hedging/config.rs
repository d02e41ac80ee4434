//! How a hedged call hedges: how many copies, and when.

use crate::error::ConfigError;
use crate::schema::{self, Dialect, Value};

/// The most hedges a call may send beyond its first copy. gRPC A6 caps a
/// hedged RPC at 5 attempts in all; past that a slow service gets more
/// load from one caller than any tail is worth.
pub const MAX_HEDGES: u32 = 4;

/// The most latencies a quantile delay may look back over. The window is
/// kept per scope, so this bounds its memory (8 bytes a sample).
pub const MAX_SAMPLES: u32 = 1_000;

/// When the next copy of a hedged call goes out if no answer came.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HedgeDelay {
    /// A fixed delay after each copy is sent (gRPC A6's `hedgingDelay`).
    Fixed {
        /// Milliseconds after a copy is sent.
        after_ms: u64,
    },
    /// A quantile of the scope's recent latencies ("The Tail at Scale":
    /// hedge once a request has run longer than the 95th percentile of its
    /// kind). Until `min_samples` latencies are known there is no timer
    /// hedge: a guess would either hedge everything or nothing.
    Quantile {
        /// The quantile (0.95 = the 95th percentile), read to thousandths.
        quantile: f64,
        /// Latencies needed before the first timer hedge.
        min_samples: u32,
        /// How many of the newest latencies the quantile is taken over.
        samples: u32,
    },
}

impl HedgeDelay {
    /// The stable code of the `kind` field: `fixed` or `quantile`.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            HedgeDelay::Fixed { .. } => "fixed",
            HedgeDelay::Quantile { .. } => "quantile",
        }
    }
}

impl Default for HedgeDelay {
    /// The 95th percentile of the last 100 latencies, once 20 are known.
    fn default() -> Self {
        HedgeDelay::Quantile {
            quantile: 0.95,
            min_samples: 20,
            samples: 100,
        }
    }
}

/// The hedging settings of a call ([`crate::Policy::start_hedged`]).
///
/// JSON shape (Rust dialect): `{"max_hedges": 1, "delay": {"kind":
/// "quantile", "quantile": 0.95, "min_samples": 20, "samples": 100}}` or
/// `{"delay": {"kind": "fixed", "after_ms": 50}}`; JavaScript writes
/// `maxHedges`, `afterMs`, Python `after` in seconds, as for every section.
/// [`HedgingConfig`] read as a call's `hedging` option
/// ([`HedgingConfig::from_option`]).
pub(crate) struct HedgingOption(pub(crate) HedgingConfig);

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HedgingConfig {
    /// Copies sent beyond the first, at most [`MAX_HEDGES`] (default 1).
    pub max_hedges: u32,
    /// When each next copy goes out.
    pub delay: HedgeDelay,
}

impl Default for HedgingConfig {
    fn default() -> Self {
        HedgingConfig {
            max_hedges: 1,
            delay: HedgeDelay::default(),
        }
    }
}

impl HedgingConfig {
    /// Parses and checks a hedging document (the Rust dialect).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem of the document.
    pub fn from_json(text: &str) -> Result<HedgingConfig, ConfigError> {
        HedgingConfig::from_value(&Value::from_json(text)?, Dialect::RUST)
    }

    /// Reads and checks a hedging document in a caller's dialect (what a
    /// JavaScript object or a Python dict holds).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, written for that caller.
    pub fn from_value(value: &Value, dialect: Dialect) -> Result<HedgingConfig, ConfigError> {
        schema::decode(value, dialect)
    }

    /// Reads the settings as a call's `hedging` option (`retry(fn, {
    /// hedging })`, `hedging=`): `value` is the option's value, and every
    /// error names the field from the option down (`hedging.maxHedges`,
    /// `hedging.delay.after`), in `dialect`'s spelling.
    ///
    /// # Errors
    /// As [`HedgingConfig::from_value`], the fields under `hedging`.
    pub fn from_option(value: &Value, dialect: Dialect) -> Result<HedgingConfig, ConfigError> {
        let doc = Value::Map(vec![("hedging".to_owned(), value.clone())]);
        schema::decode::<HedgingOption>(&doc, dialect).map(|option| option.0)
    }

    /// The settings as a document in `dialect`, every default filled in.
    #[must_use]
    pub fn to_value(&self, dialect: Dialect) -> Value {
        schema::encode(self, dialect)
    }

    /// Checks every value (settings built in Rust).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, fields in the Rust spelling.
    pub fn validate(&self) -> Result<(), ConfigError> {
        schema::validate(self)
    }

    /// Copies a call may send in all, the first included.
    #[must_use]
    pub const fn max_copies(&self) -> u32 {
        self.max_hedges.saturating_add(1)
    }
}
