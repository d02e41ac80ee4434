//! `parts`: the engine's pieces on their own (a breaker, a retry budget,
//! metrics with alerts, log records), for hosts that compose them.

use stoic_core::SortedMap;

use stoic_core::record::{metric_points, LogOutcome, LogRecord, MetricsSnapshot};
use stoic_core::schema::{emit, Dialect, Value};
use stoic_core::WallClock;

use crate::bindings::exports::stoic::engine::parts::{Guest, LogInput};
use crate::bindings::exports::stoic::engine::policy::LogRecord as WitLogRecord;
use crate::bindings::exports::stoic::engine::types::InputError;
use crate::convert::{data, json, misuse};
use crate::policy::log_record;
use crate::Engine;

pub mod breaker;
pub mod budget;
pub mod metrics;

impl Guest for Engine {
    type Breaker = breaker::Breaker;
    type Budget = budget::Budget;
    type Metrics = metrics::Metrics;

    fn format_log_record(input: LogInput) -> Result<WitLogRecord, InputError> {
        let outcome = LogOutcome::from_code(&input.outcome).ok_or_else(|| {
            misuse("outcome must be one of `retry`, `success`, `exhausted`, `gave_up`")
        })?;
        let record = LogRecord::new(
            WallClock::from_unix_millis(input.wall_now_unix_ms),
            &input.operation,
            input.attempt,
            input.max_attempts,
            input.delay_ms,
            input
                .error
                .as_ref()
                .map(|e| (e.code.as_str(), e.message.as_str())),
            &input.strategy,
            outcome,
            input.total_duration_ms,
        );
        Ok(log_record(&record))
    }

    fn merge_metrics(a: String, b: String) -> Result<String, InputError> {
        let mut a: MetricsSnapshot = data(&a)?;
        let b: MetricsSnapshot = data(&b)?;
        a.merge(&b);
        Ok(json(&a))
    }

    fn metric_catalogue(metrics: Vec<(String, String)>) -> Result<String, InputError> {
        let mut scopes = SortedMap::new();
        for (scope, snapshot) in metrics {
            scopes.insert(scope, data::<MetricsSnapshot>(&snapshot)?);
        }
        let metrics = metric_points(&scopes)
            .map(|m| emit(&m, Dialect::RUST))
            .collect();
        Ok(Value::List(metrics).to_json_text())
    }
}
