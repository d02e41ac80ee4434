//! How a trip rule and a window are read: through a flat struct instead of
//! serde's internally tagged enums.
//!
//! Why: serde buffers an internally tagged enum whole before reading it, so
//! an error inside one (`"threshold": "5"`) loses its position and names
//! only the enclosing object. Read flat, every field is parsed in place: the
//! error names the field itself, and `Config::from_json` can read that name
//! off the position where the parse stopped (`crate::json_path`). The
//! checks that depend on `kind` run inside the object's own visit, so their
//! errors are placed at the object too, not at whatever encloses it. The
//! written form is unchanged (the enums still serialize with `kind`).

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Error as _, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::config::{Compare, SlowCall, TripRule, Window};

/// Reads an object as the flat form `W`, then checks and converts it to
/// `T` before the object's visit ends.
struct Flat<W, T>(PhantomData<fn() -> (W, T)>);

impl<'de, W, T> Visitor<'de> for Flat<W, T>
where
    W: Deserialize<'de>,
    T: TryFrom<W, Error = String>,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object with a `kind`")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        let wire = W::deserialize(MapAccessDeserializer::new(map))?;
        T::try_from(wire).map_err(A::Error::custom)
    }
}

fn deserialize_flat<'de, D, W, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    W: Deserialize<'de>,
    T: TryFrom<W, Error = String>,
{
    d.deserialize_map(Flat::<W, T>(PhantomData))
}

impl<'de> Deserialize<'de> for TripRule {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_flat::<D, TripRuleWire, TripRule>(d)
    }
}

impl<'de> Deserialize<'de> for Window {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_flat::<D, WindowWire, Window>(d)
    }
}

/// Reads a present field, rejecting `null` like a required one would;
/// absent fields stay `None` through `#[serde(default)]`.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum TripKind {
    ConsecutiveFailures,
    FailureRate,
}

/// Every field any trip rule has; which ones may appear depends on `kind`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TripRuleWire {
    kind: TripKind,
    #[serde(default, deserialize_with = "present")]
    threshold: Option<u32>,
    #[serde(default, deserialize_with = "present")]
    compare: Option<Compare>,
    #[serde(default, deserialize_with = "present")]
    window: Option<Window>,
    #[serde(default, deserialize_with = "present")]
    failure_rate: Option<f64>,
    #[serde(default, deserialize_with = "present")]
    minimum_throughput: Option<u32>,
    /// `null` means none, as it always has.
    #[serde(default)]
    slow_call: Option<SlowCall>,
}

/// The words serde itself uses, so error codes map the same way.
fn unknown(field: &str, expected: &str) -> String {
    format!("unknown field `{field}`, expected {expected}")
}

fn missing(field: &str) -> String {
    format!("missing field `{field}`")
}

impl TryFrom<TripRuleWire> for TripRule {
    type Error = String;

    fn try_from(w: TripRuleWire) -> Result<Self, String> {
        let compare = w.compare.unwrap_or_default();
        match w.kind {
            TripKind::ConsecutiveFailures => {
                let extra = [
                    ("window", w.window.is_some()),
                    ("failure_rate", w.failure_rate.is_some()),
                    ("minimum_throughput", w.minimum_throughput.is_some()),
                    ("slow_call", w.slow_call.is_some()),
                ];
                if let Some((name, _)) = extra.iter().find(|(_, given)| *given) {
                    return Err(unknown(name, "`kind`, `threshold` or `compare`"));
                }
                Ok(TripRule::ConsecutiveFailures {
                    threshold: w.threshold.unwrap_or(5),
                    compare,
                })
            }
            TripKind::FailureRate => {
                if w.threshold.is_some() {
                    return Err(unknown(
                        "threshold",
                        "one of `kind`, `window`, `failure_rate`, `minimum_throughput`, `compare`, `slow_call`",
                    ));
                }
                Ok(TripRule::FailureRate {
                    window: w.window.ok_or_else(|| missing("window"))?,
                    failure_rate: w.failure_rate.ok_or_else(|| missing("failure_rate"))?,
                    minimum_throughput: w
                        .minimum_throughput
                        .ok_or_else(|| missing("minimum_throughput"))?,
                    compare,
                    slow_call: w.slow_call,
                })
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum WindowKind {
    Count,
    Time,
}

/// Every field any window has; which ones may appear depends on `kind`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WindowWire {
    kind: WindowKind,
    #[serde(default, deserialize_with = "present")]
    size: Option<u32>,
    #[serde(default, deserialize_with = "present")]
    duration_ms: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    buckets: Option<u32>,
}

impl TryFrom<WindowWire> for Window {
    type Error = String;

    fn try_from(w: WindowWire) -> Result<Self, String> {
        match w.kind {
            WindowKind::Count => {
                if w.duration_ms.is_some() {
                    return Err(unknown("duration_ms", "`kind` or `size`"));
                }
                if w.buckets.is_some() {
                    return Err(unknown("buckets", "`kind` or `size`"));
                }
                Ok(Window::Count {
                    size: w.size.ok_or_else(|| missing("size"))?,
                })
            }
            WindowKind::Time => {
                if w.size.is_some() {
                    return Err(unknown("size", "one of `kind`, `duration_ms`, `buckets`"));
                }
                Ok(Window::Time {
                    duration_ms: w.duration_ms.ok_or_else(|| missing("duration_ms"))?,
                    buckets: w.buckets.ok_or_else(|| missing("buckets"))?,
                })
            }
        }
    }
}
