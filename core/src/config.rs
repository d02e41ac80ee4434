//! The config: one document, read by the schema and validated once at
//! construction.
//!
//! `Policy::new` is the only fallible step of the engine, so everything that
//! can be wrong with a config is caught here, with an error that names the
//! field by its dotted path and a stable code. Unknown fields are errors (a
//! typo must not silently fall back to a default). `version` pins behaviour:
//! a later release that changes a default or a formula bumps it and keeps the
//! old behaviour for documents that say `1`.

use crate::backoff::BackoffSpec;
use crate::breaker::BreakerConfig;
use crate::budget::RetryBudgetConfig;
use crate::classify::ClassifyConfig;
use crate::deadline::Timeouts;
use crate::error::ConfigError;
use crate::record::AlertConfig;
use crate::schema::{self, Dialect, Value};

/// The behaviour version this build implements.
pub const CONFIG_VERSION: u32 = 1;

/// The most attempts a call may be configured to make.
pub const MAX_ATTEMPTS_LIMIT: u32 = 1_000;

/// How server hints are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct HintsConfig {
    /// Use server hints at all ("Retries, timeouts and doing it twice": "when
    /// the server tells you the number, use it").
    pub respect: bool,
    /// The longest wait a hint may impose; longer hints are clamped to it.
    /// Default 6 h, urllib3's `DEFAULT_RETRY_AFTER_MAX`; in practice the
    /// total deadline ends such calls first.
    pub max_delay_ms: u64,
}

impl Default for HintsConfig {
    fn default() -> Self {
        HintsConfig {
            respect: true,
            max_delay_ms: 21_600_000,
        }
    }
}

/// How observations are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct ObservationConfig {
    /// The most characters of a body excerpt quoted in an observation.
    pub max_excerpt_chars: u32,
}

impl Default for ObservationConfig {
    fn default() -> Self {
        ObservationConfig {
            max_excerpt_chars: 300,
        }
    }
}

/// The whole engine config. `Default` is the documented defaults, except
/// `seed`, which the host must supply (bindings draw it from OS randomness).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct Config {
    /// The behaviour version; only [`CONFIG_VERSION`] is accepted.
    pub version: u32,
    /// The jitter seed. Required: two clients with the same seed retry in
    /// lockstep, which is exactly what jitter exists to prevent.
    pub seed: Option<u64>,
    /// Attempts per call, the first included ("Implementing Smart Retry Logic
    /// for Transient Errors": 5).
    pub max_attempts: u32,
    /// The backoff strategy and its parameters.
    pub backoff: BackoffSpec,
    /// Connect, per-attempt and total timeouts.
    pub timeouts: Timeouts,
    /// Server hints.
    pub hints: HintsConfig,
    /// Classification overrides.
    pub classify: ClassifyConfig,
    /// Observation text settings.
    pub observation: ObservationConfig,
    /// The circuit breaker each scope gets; `null` disables breakers.
    /// Default: the seed's (5 consecutive failures, 60 s cooldown, 1 probe,
    /// 2 successes to close).
    pub breaker: Option<BreakerConfig>,
    /// The retry budgets each scope gets (default: 10 % of first attempts
    /// over a minute, with a small floor).
    pub budget: RetryBudgetConfig,
    /// Alert thresholds ("Implementing Smart Retry Logic for Transient Errors":
    /// retry rate 20 %, exhausted rate 5 %).
    pub alerts: AlertConfig,
    /// The most scopes a policy tracks; new names past it share one
    /// overflow scope, so memory stays bounded.
    pub max_scopes: u32,
    /// Queue a log record per decision (off by default: a record costs more
    /// than the decision it describes).
    pub log_records: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            version: CONFIG_VERSION,
            seed: None,
            max_attempts: 5,
            backoff: BackoffSpec::default(),
            timeouts: Timeouts::default(),
            hints: HintsConfig::default(),
            classify: ClassifyConfig::default(),
            observation: ObservationConfig::default(),
            breaker: Some(BreakerConfig::default()),
            budget: RetryBudgetConfig::default(),
            alerts: AlertConfig::default(),
            max_scopes: 1_000,
            log_records: false,
        }
    }
}

impl Config {
    /// The defaults with `seed`.
    #[must_use]
    pub fn with_seed(seed: u64) -> Self {
        Config {
            seed: Some(seed),
            ..Config::default()
        }
    }

    /// Parses and validates a JSON config document (snake_case keys,
    /// integer milliseconds: the Rust dialect of [`crate::schema`]).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem of the document.
    pub fn from_json(text: &str) -> Result<Config, ConfigError> {
        Config::from_value(&Value::from_json(text)?, Dialect::RUST)
    }

    /// Reads and validates a config document in a caller's dialect (the
    /// bindings pass what a JavaScript object or a Python dict holds).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, written for that caller.
    pub fn from_value(value: &Value, dialect: Dialect) -> Result<Config, ConfigError> {
        schema::decode(value, dialect)
    }

    /// The config as a document in `dialect`, every default filled in.
    #[must_use]
    pub fn to_value(&self, dialect: Dialect) -> Value {
        schema::encode(self, dialect)
    }

    /// Checks every value (a config built in Rust).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, fields in the Rust spelling.
    pub fn validate(&self) -> Result<(), ConfigError> {
        schema::validate(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ConfigErrorCode;

    fn err(text: &str) -> ConfigError {
        Config::from_json(text).unwrap_err()
    }

    #[test]
    fn only_a_json_object_is_a_config_or_a_snapshot() {
        for text in ["[1, 2]", "  [1,2]", "7", "\"x\"", "null"] {
            assert_eq!(err(text).code(), ConfigErrorCode::WrongType, "{text}");
            let state = crate::state::PolicyState::from_json(text).unwrap_err();
            assert_eq!(state.code().as_str(), "invalid_snapshot", "{text}");
        }
        assert_eq!(err("  ").code(), ConfigErrorCode::InvalidJson);
        assert!(Config::from_json(" \n{\"seed\": 1}").is_ok());
    }

    #[test]
    fn defaults_are_the_seeds() {
        let c = Config::from_json(r#"{"seed": 7}"#).unwrap();
        assert_eq!(c.max_attempts, 5);
        assert_eq!(c.backoff.base_ms, 1_000);
        assert_eq!(c.backoff.cap_ms, 30_000);
        assert_eq!(c.timeouts.connect_ms, Some(5_000));
        assert_eq!(c.timeouts.read_ms, Some(30_000));
        assert_eq!(c.timeouts.total_ms, Some(120_000));
    }

    #[test]
    fn errors_name_the_field_with_a_stable_code() {
        let e = err(r#"{"seed": 1, "max_attempts": 0}"#);
        assert_eq!(
            (e.code(), e.field()),
            (ConfigErrorCode::OutOfRange, "max_attempts")
        );
        let e = err(r#"{"seed": 1, "timeouts": {"read_ms": "30s"}}"#);
        assert_eq!(
            (e.code(), e.field()),
            (ConfigErrorCode::WrongType, "timeouts.read_ms")
        );
        let e = err(r#"{"seed": 1, "timeouts": {"raed_ms": 5}}"#);
        assert_eq!(
            (e.code(), e.field()),
            (ConfigErrorCode::UnknownField, "timeouts.raed_ms")
        );
        let e = err(r#"{"seed": 1, "max_atempts": 3}"#);
        assert_eq!(
            (e.code(), e.field()),
            (ConfigErrorCode::UnknownField, "max_atempts")
        );
        let e = err(r#"{"seed": 1, "classify": {"status": {"404": "sometimes"}}}"#);
        assert_eq!(
            (e.code(), e.field()),
            (ConfigErrorCode::InvalidValue, "classify.status.404")
        );
        let e = err(r#"{"seed": -1}"#);
        assert_eq!((e.code(), e.field()), (ConfigErrorCode::OutOfRange, "seed"));
        let e = err(r#"{}"#);
        assert_eq!((e.code(), e.field()), (ConfigErrorCode::Required, "seed"));
        let e = err(r#"{"seed": 1, "version": 2}"#);
        assert_eq!(
            (e.code(), e.field()),
            (ConfigErrorCode::UnsupportedVersion, "version")
        );
        let e = err(r#"{"seed": 1,"#);
        assert_eq!(e.code(), ConfigErrorCode::InvalidJson);
        let e = err(r#"{"seed": 1} x"#);
        assert_eq!(e.code(), ConfigErrorCode::InvalidJson);
        let e = err(r#"5"#);
        assert_eq!(e.code(), ConfigErrorCode::WrongType);
    }

    #[test]
    fn network_overrides_parse() {
        let c = Config::from_json(
            r#"{"seed": 1, "classify": {"network": {"read_timeout": "transient"}, "ambiguous": "never"}}"#,
        )
        .unwrap();
        assert_eq!(c.classify.network.len(), 1);
    }

    #[test]
    fn round_trips_through_json() {
        let c = Config::with_seed(99);
        let text = crate::schema::json::text(&c);
        assert_eq!(Config::from_json(&text).unwrap(), c);
    }
}
