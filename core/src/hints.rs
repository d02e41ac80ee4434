//! TEMP stand-in until the hints module lands (replaced at merge).
use serde::{Deserialize, Serialize};
/// TEMP
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HintSource {
    /// TEMP
    RetryAfter,
}
impl HintSource {
    /// TEMP
    #[must_use]
    pub const fn code(self) -> &'static str {
        "retry_after"
    }
}
/// TEMP
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ServerHint {
    /// TEMP
    Delay {
        /// TEMP
        delay_ms: u64,
        /// TEMP
        source: HintSource,
    },
    /// TEMP
    DoNotRetry {
        /// TEMP
        source: HintSource,
    },
}
impl ServerHint {
    /// TEMP
    #[must_use]
    pub fn delay_with_backoff(&self, _backoff_ms: u64) -> Option<u64> {
        match self {
            ServerHint::Delay { delay_ms, .. } => Some(*delay_ms),
            ServerHint::DoNotRetry { .. } => None,
        }
    }
    /// TEMP
    #[must_use]
    pub fn source(&self) -> HintSource {
        HintSource::RetryAfter
    }
}
