//! What the host observed, from Python arguments to the core's `Outcome`.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use stoic_core::hints::{server_hint, ServerHint};
use stoic_core::{Class, NetworkErrorKind, Outcome, OutcomeKind, Policy};

use crate::errors::usage_error;
use crate::seconds::Secs;
use crate::text::LossyText;

/// Response headers as owned pairs: a dict, any mapping with `items()`
/// (`httpx.Headers.multi_items()` keeps repeated headers apart), or an
/// iterable of `(name, value)` pairs.
pub(crate) fn header_pairs(headers: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(String, String)>> {
    let Some(headers) = headers else {
        return Ok(Vec::new());
    };
    if headers.is_none() {
        return Ok(Vec::new());
    }
    let items = if let Ok(dict) = headers.cast::<PyDict>() {
        dict.items().into_any()
    } else if headers.hasattr("items")? {
        headers.call_method0("items")?
    } else {
        headers.clone()
    };
    let mut pairs = Vec::new();
    for item in items.try_iter()? {
        // Header text is read lossily: a lone surrogate is garbage to
        // ignore, not an untyped `UnicodeEncodeError` on the hot path.
        let (LossyText(name), LossyText(value)) = item?.extract()?;
        pairs.push((name, value));
    }
    Ok(pairs)
}

/// The server's hint in `headers`; `wall_now` (Unix seconds) dates
/// HTTP-date values when the response has no `Date` header.
pub(crate) fn hint(
    pairs: &[(String, String)],
    wall_now: Option<Secs>,
) -> PyResult<Option<ServerHint>> {
    let wall_now = wall_now.map(|w| w.wall("wall_now")).transpose()?;
    if pairs.is_empty() {
        return Ok(None);
    }
    Ok(server_hint(
        pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())),
        wall_now,
    ))
}

/// A response's outcome by the core's one rule
/// ([`Policy::response_outcome`]): the server's hint in `pairs` is read only
/// for a status `policy` may retry.
pub(crate) fn response(
    policy: &Policy,
    status: u16,
    pairs: &[(String, String)],
    wall_now: Option<Secs>,
) -> PyResult<Outcome<'static>> {
    let wall_now = wall_now.map(|w| w.wall("wall_now")).transpose()?;
    let pairs = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str()));
    Ok(policy.response_outcome(status, pairs, wall_now))
}

/// A network error kind by its code.
pub(crate) fn network_kind(code: &str) -> PyResult<NetworkErrorKind> {
    NetworkErrorKind::from_code(code).ok_or_else(|| {
        let known: Vec<&str> = NetworkErrorKind::ALL.iter().map(|k| k.code()).collect();
        usage_error(
            "invalid_value",
            format!(
                "unknown network error kind {code:?}; expected one of {}",
                known.join(", ")
            ),
        )
    })
}

/// A class by its code.
pub(crate) fn class(code: &str) -> PyResult<Class> {
    Class::from_code(code).ok_or_else(|| {
        usage_error(
            "invalid_value",
            format!(
                "unknown class {code:?}; expected transient, deterministic, ambiguous or success"
            ),
        )
    })
}

/// An outcome given as keyword arguments (`Policy.on_outcome`,
/// `Policy.hedge_outcome`): at most one of `status`, `network` (a kind
/// code), `rejected` and `raised` (class codes); none is a success.
pub(crate) struct OutcomeArgs<'a, 'py> {
    pub(crate) status: Option<&'a Bound<'py, PyAny>>,
    pub(crate) network: Option<LossyText>,
    pub(crate) rejected: Option<LossyText>,
    pub(crate) raised: Option<LossyText>,
    pub(crate) headers: Option<&'a Bound<'py, PyAny>>,
    pub(crate) wall_now: Option<Secs>,
}

impl OutcomeArgs<'_, '_> {
    /// The outcome, a response's hint read by `policy`'s rule.
    pub(crate) fn outcome(&self, policy: &crate::shared::Policy) -> PyResult<Outcome<'static>> {
        let pairs = header_pairs(self.headers)?;
        let status = self.status.map(crate::ints::http_status).transpose()?;
        let given = (
            status,
            self.network.as_ref(),
            self.rejected.as_ref(),
            self.raised.as_ref(),
        );
        let kind = match given {
            (None, None, None, None) => Outcome::success(),
            (Some(s), None, None, None) => Outcome::status(s),
            (None, Some(n), None, None) => Outcome::network(network_kind(&n.0)?),
            (None, None, Some(c), None) => Outcome::rejected(class(&c.0)?),
            (None, None, None, Some(c)) => Outcome::raised(class(&c.0)?),
            _ => {
                return Err(usage_error(
                    "invalid_value",
                    "give at most one of status, network, rejected and raised".to_owned(),
                ))
            }
        };
        // Checked whatever the outcome: a bad wall_now is refused.
        let wall = self.wall_now.map(|w| w.wall("wall_now")).transpose()?;
        Ok(match kind.kind {
            // A response's headers are read by the core's one rule; no
            // other outcome carries a hint.
            OutcomeKind::Status(status) => {
                let pairs = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str()));
                policy.lock().response_outcome(status, pairs, wall)
            }
            _ => kind,
        })
    }
}
