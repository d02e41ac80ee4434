//! `stoic._stoic`: the native half of the `stoic` Python package.
//!
//! Translation only. Each function converts its Python arguments, calls
//! `stoic-core`, and converts the answer back; every decision, default and
//! validation rule lives in the core. Python speaks float seconds, the core
//! integer milliseconds: [`convert`] and [`schema`] map one to the other by
//! a naming rule (`x_ms` <-> `x`), never by a list of fields. Nothing here
//! panics into Python: the core never panics, locks survive poisoning, and
//! conversions return errors.

use pyo3::prelude::*;

mod backoff;
mod breaker;
mod budget;
mod call;
mod call_options;
mod clock;
mod convert;
mod document;
mod errors;
mod hedged;
mod helpers;
mod host;
mod outcome;
mod overrides;
mod parts;
mod policy;
mod pump;
mod records;
mod registry;
mod run;
mod shared;

mod ints;
mod seconds;
mod server;
mod text;

/// The native module. `stoic/__init__.py` re-exports what users need.
#[pymodule]
fn _stoic(m: &Bound<'_, PyModule>) -> PyResult<()> {
    registry::keep_module(m);
    m.add_function(wrap_pyfunction!(registry::register_host, m)?)?;
    m.add("listening", false)?;
    m.add_function(wrap_pyfunction!(clock::monotonic, m)?)?;
    m.add_class::<shared::Policy>()?;
    m.add_class::<call::Call>()?;
    m.add_class::<hedged::HedgedCall>()?;
    m.add_class::<hedged::HedgingConfig>()?;
    m.add_class::<policy::CallStart>()?;
    m.add_class::<pump::FirstAttempt>()?;
    m.add_class::<pump::Pending>()?;
    m.add_class::<overrides::CallOverrides>()?;
    m.add_class::<backoff::Backoff>()?;
    m.add_class::<breaker::Breaker>()?;
    m.add_class::<breaker::Permit>()?;
    m.add_class::<budget::RetryBudget>()?;
    m.add_class::<budget::RetryTicket>()?;
    m.add_class::<records::Metrics>()?;
    m.add_class::<records::LogRecord>()?;
    m.add_class::<server::ServerIdempotency>()?;
    m.add_class::<run::RunQuota>()?;
    m.add_function(wrap_pyfunction!(run::tool_reason, m)?)?;
    m.add_function(wrap_pyfunction!(run::tool_retry_later, m)?)?;
    m.add(
        "DEFAULT_RUN_MAX_RETRIES",
        stoic_core::run::DEFAULT_RUN_MAX_RETRIES,
    )?;
    m.add("NESTED_RETRY_HEADER", stoic_core::host::NESTED_RETRY_HEADER)?;
    m.add_function(wrap_pyfunction!(server::request_fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(records::merge_metrics, m)?)?;
    m.add_function(wrap_pyfunction!(records::metric_catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::canonical_json, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::canonical_json_text, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::idempotency_key, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::idempotency_key_text, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::random_key, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::key_header_value, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::parse_key_header, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::parse_retry_after, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::parse_http_date, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::format_http_date, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::server_hint, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::hint_delay, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::es6_number, m)?)?;
    m.add_function(wrap_pyfunction!(helpers::is_idempotent_method, m)?)?;
    m.add_function(wrap_pyfunction!(host::host_policy, m)?)?;
    m.add_function(wrap_pyfunction!(host::wants_excerpt, m)?)?;
    m.add_function(wrap_pyfunction!(host::is_event_stream, m)?)?;
    m.add_function(wrap_pyfunction!(host::validates_status, m)?)?;
    m.add_function(wrap_pyfunction!(host::is_failure_status, m)?)?;
    m.add_function(wrap_pyfunction!(host::http_plan, m)?)?;
    m.add("CORE_VERSION", env!("CARGO_PKG_VERSION"))?;
    m.add("FLEET_REDIS_SCRIPT", stoic_core::fleet::REDIS_SCRIPT)?;
    Ok(())
}
