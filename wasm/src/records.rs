//! Log records and metric merging for hosts that keep their own loops
//! (`stoic/tools`; a policy writes its records itself), and the metric
//! catalogue exporters read.

use stoic_core::SortedMap;

use js_sys::{Object, Reflect};
use stoic_core::record::{metric_points, LogOutcome, LogRecord, MetricsSnapshot};
use stoic_core::schema::{emit_json, Dialect};
use stoic_core::WallClock;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::data::read_data;
use crate::errors::usage_error;
use crate::units::ms;
use crate::value::{js_emit, log_record_extras, own_keys};
use wasm_bindgen::JsCast;

/// A log record from its fields; returns the record with `line` (one-line
/// JSON) and `text` (the display form).
#[wasm_bindgen(js_name = logRecord)]
#[allow(clippy::too_many_arguments)] // one argument per field of the record
pub fn log_record(
    wall_ms: f64,
    operation: &str,
    attempt: u32,
    max_attempts: u32,
    delay_ms: f64,
    error_code: Option<String>,
    error_message: Option<String>,
    strategy: &str,
    outcome: &str,
    total_duration_ms: f64,
) -> Result<JsValue, JsValue> {
    let outcome = LogOutcome::from_code(outcome)
        .ok_or_else(|| usage_error("invalid_value", "unknown log outcome"))?;
    let error = match (error_code.as_deref(), error_message.as_deref()) {
        (Some(code), message) => Some((code, message.unwrap_or_default())),
        (None, _) => None,
    };
    let record = LogRecord::new(
        WallClock::from_unix_millis(ms(wall_ms)),
        operation,
        attempt,
        max_attempts,
        ms(delay_ms),
        error,
        strategy,
        outcome,
        ms(total_duration_ms),
    );
    let mut json = emit_json(&record, Dialect::JS);
    // Before the record's closing brace.
    json.pop();
    json.push_str(&log_record_extras(&record));
    json.push('}');
    Ok(js_sys::JSON::parse(&json).unwrap_or(JsValue::NULL))
}

/// Two metrics snapshots merged (counters add, the newer gauge wins).
#[wasm_bindgen(js_name = mergeMetrics)]
pub fn merge_metrics(a: JsValue, b: JsValue) -> Result<JsValue, JsValue> {
    let mut a: MetricsSnapshot = read_data(&a)?;
    let b: MetricsSnapshot = read_data(&b)?;
    a.merge(&b);
    Ok(js_emit(&a))
}

/// The metric catalogue: every metric of a scope's snapshot with the names,
/// kind, unit, description and bucket bounds exporters publish it under
/// (`stoic/prometheus`), and its points per scope when given
/// `policy.metrics()`, in the units exporters publish (seconds).
#[wasm_bindgen(js_name = metricCatalogue)]
pub fn metric_catalogue(metrics: JsValue) -> Result<js_sys::Array, JsValue> {
    let mut scopes = SortedMap::new();
    if !metrics.is_null() && !metrics.is_undefined() {
        let object: &Object = metrics.dyn_ref().ok_or_else(|| {
            usage_error(
                "wrong_type",
                "metrics must be an object of snapshots by scope",
            )
        })?;
        for scope in own_keys(object)? {
            let snapshot = Reflect::get(object, &JsValue::from_str(&scope))?;
            scopes.insert(scope, read_data::<MetricsSnapshot>(&snapshot)?);
        }
    }
    Ok(metric_points(&scopes).map(|m| js_emit(&m)).collect())
}
