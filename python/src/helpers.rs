//! The pure helpers: canonical JSON, idempotency keys, header values,
//! Retry-After and HTTP dates, server hints.

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};
use stoic_core::httpdate::{format_imf_fixdate, parse_http_date_at};
use stoic_core::key::{self, KeyHeaderForm};

use crate::convert::{from_py, ms_to_secs, Numbers};
use crate::document::{data_of, py_emit};
use crate::errors::{input_error, usage_error, value_input_error};
use crate::ints::whole;
use crate::outcome::{header_pairs, hint};
use crate::seconds::Secs;
use crate::text::{LossyText, StrictText};

/// A Python value as JSON text (for the key helpers).
fn json_text(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let value = from_py(obj, "", Numbers::Plain).map_err(|e| value_input_error(py, e))?;
    Ok(value.to_json_text())
}

/// RFC 8785 canonical JSON of a Python value (dicts, lists, str, int,
/// float, bool, None).
#[pyfunction]
pub(crate) fn canonical_json(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = json_text(py, obj)?;
    // A Python int is exact: one a double cannot hold is refused, not rounded.
    key::canonical_json_exact(&text).map_err(|e| input_error(py, &e))
}

/// RFC 8785 canonical form of JSON text (duplicate keys, lone surrogates
/// and non-finite numbers are errors).
#[pyfunction]
pub(crate) fn canonical_json_text(py: Python<'_>, text: StrictText<'_>) -> PyResult<String> {
    key::canonical_json(text.0).map_err(|e| input_error(py, &e))
}

/// The idempotency key of step `step` of run `run_id` with arguments
/// `args`: stable across runs, processes and languages.
#[pyfunction]
pub(crate) fn idempotency_key(
    py: Python<'_>,
    run_id: StrictText<'_>,
    step: StrictText<'_>,
    args: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let text = json_text(py, args)?;
    key::idempotency_key(run_id.0, step.0, &text).map_err(|e| input_error(py, &e))
}

/// The same key from arguments given as JSON text.
#[pyfunction]
pub(crate) fn idempotency_key_text(
    py: Python<'_>,
    run_id: StrictText<'_>,
    step: StrictText<'_>,
    args_text: StrictText<'_>,
) -> PyResult<String> {
    key::idempotency_key(run_id.0, step.0, args_text.0).map_err(|e| input_error(py, &e))
}

/// A random key (UUID v4 text) from 16 random bytes; None draws them from
/// `os.urandom`.
#[pyfunction]
#[pyo3(signature = (random=None))]
pub(crate) fn random_key(py: Python<'_>, random: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    let bytes: Vec<u8> = match random {
        Some(given)
            if given.is_instance_of::<PyBytes>() || given.is_instance_of::<PyByteArray>() =>
        {
            given.extract()?
        }
        Some(given) => {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "random_key takes 16 bytes, not {}",
                given.get_type().name()?
            )))
        }
        None => py.import("os")?.call_method1("urandom", (16,))?.extract()?,
    };
    let bytes: [u8; 16] = bytes.try_into().map_err(|_| {
        usage_error(
            "invalid_value",
            "random_key needs exactly 16 bytes".to_owned(),
        )
    })?;
    Ok(key::random_key(bytes))
}

fn header_form(form: &str) -> PyResult<KeyHeaderForm> {
    KeyHeaderForm::from_code(form).ok_or_else(|| {
        usage_error(
            "invalid_value",
            format!("unknown header form {form:?}; expected bare or quoted"),
        )
    })
}

/// The `Idempotency-Key` header value for `key` (`form`: `bare` or
/// `quoted`).
#[pyfunction]
#[pyo3(
    signature = (key, form=LossyText(String::from("bare"))),
    text_signature = "(key, form='bare')"
)]
pub(crate) fn key_header_value(key: StrictText<'_>, form: LossyText) -> PyResult<String> {
    Ok(key::header_value(key.0, header_form(&form.0)?))
}

/// The key an `Idempotency-Key` header value carries, in either form.
#[pyfunction]
pub(crate) fn parse_key_header(value: LossyText) -> Option<String> {
    key::parse_key_header(&value.0)
}

/// A `Retry-After` value as seconds to wait, or None; `now` is Unix
/// seconds (for HTTP-date values).
#[pyfunction]
pub(crate) fn parse_retry_after(value: LossyText, now: Secs) -> PyResult<Option<f64>> {
    Ok(stoic_core::parse_retry_after(&value.0, now.ms("now")?).map(ms_to_secs))
}

/// An HTTP-date as Unix seconds, or None; `now` (Unix seconds) resolves
/// two-digit years as RFC 9110 asks.
#[pyfunction]
#[pyo3(signature = (value, now=None))]
pub(crate) fn parse_http_date(value: LossyText, now: Option<Secs>) -> PyResult<Option<u64>> {
    let now = now.map(|n| n.ms("now")).transpose()?;
    Ok(parse_http_date_at(&value.0, now.map(|ms| ms / 1000)))
}

/// Unix seconds as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
#[pyfunction]
pub(crate) fn format_http_date(unix: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(format_imf_fixdate(whole(unix, "unix")?))
}

/// The server's retry hint in response headers as a dict (`kind`:
/// `delay`, `bounded`, `do_not_retry`), or None. An HTTP-date or epoch
/// value is read against the response's `Date` header, else `wall_now`
/// (Unix seconds, such as `time.time()`); with neither it is ignored.
#[pyfunction]
#[pyo3(signature = (headers, wall_now=None))]
pub(crate) fn server_hint<'py>(
    py: Python<'py>,
    headers: &Bound<'py, PyAny>,
    wall_now: Option<Secs>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let pairs = header_pairs(Some(headers))?;
    hint(&pairs, wall_now)?.map(|h| py_emit(py, &h)).transpose()
}

/// The delay a hint asks for given the computed backoff (seconds), or None
/// for "do not retry". The hint is the dict `server_hint` returned.
#[pyfunction]
pub(crate) fn hint_delay(
    py: Python<'_>,
    hint: &Bound<'_, PyAny>,
    backoff: Secs,
) -> PyResult<Option<f64>> {
    let hint: stoic_core::hints::ServerHint = data_of(py, hint)?;
    Ok(hint
        .delay_with_backoff(backoff.ms("backoff")?)
        .map(ms_to_secs))
}

/// ECMAScript's shortest round-trip text of a double (RFC 8785 numbers);
/// None for NaN and infinities.
#[pyfunction]
pub(crate) fn es6_number(value: f64) -> Option<String> {
    key::es6_number(value)
}

/// Whether repeating a request with this HTTP method is harmless (RFC 9110
/// §9.2.2), as the engine judges it.
#[pyfunction]
pub(crate) fn is_idempotent_method(method: LossyText) -> bool {
    stoic_core::Method::parse(&method.0).is_idempotent()
}
