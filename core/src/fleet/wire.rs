//! The exchange's wire form: one JSON document per scope each way, the same
//! for every host adapter and read by the store's script (Redis Lua's
//! `cjson`), so no adapter shapes a delta or a view itself.
//!
//! A scope's delta: `{"scope", "seq", "bucket_ms", "window_ms", "buckets":
//! [[index, first_attempts, retries], ...], "breaker": null or
//! {"opened_until", "closed_until", "wants_probe", "lease_ms"}}`. The
//! script's reply, a scope's view: `{"scope", "seq", "bucket_ms", "buckets":
//! [...], "open_until", "closed_until", "lease"}`, with `buckets` an empty object when there
//! are none (`cjson` writes an empty table so) and `open_until` absent when
//! the fleet's breaker is closed. Times are the store's, in ms.

use crate::error::{InputError, InputErrorCode};
use crate::schema::Value;

use super::tally::{BreakerFacts, FleetDelta, ScopeView, Tally};

fn int(n: u64) -> Value {
    Value::Int(i128::from(n))
}

fn opt_int(n: Option<u64>) -> Value {
    n.map_or(Value::Null, int)
}

fn breaker_value(facts: Option<BreakerFacts>) -> Value {
    facts.map_or(Value::Null, |f| {
        Value::Map(vec![
            ("opened_until".to_owned(), opt_int(f.opened_until)),
            ("closed_until".to_owned(), opt_int(f.closed_until)),
            ("wants_probe".to_owned(), Value::Bool(f.wants_probe)),
            ("lease_ms".to_owned(), int(f.lease_ms)),
        ])
    })
}

fn buckets_value(buckets: &[(u64, Tally)]) -> Value {
    Value::List(
        buckets
            .iter()
            .map(|(index, t)| Value::List(vec![int(*index), int(t.requests), int(t.retries)]))
            .collect(),
    )
}

impl FleetDelta {
    /// One JSON document per scope: what the store's script takes.
    #[must_use]
    pub fn scope_texts(&self) -> Vec<(String, String)> {
        self.scopes
            .iter()
            .map(|s| {
                let doc = Value::Map(vec![
                    ("scope".to_owned(), Value::Text(s.scope.clone())),
                    ("seq".to_owned(), int(self.seq)),
                    ("bucket_ms".to_owned(), int(s.bucket_ms)),
                    ("window_ms".to_owned(), int(s.window_ms)),
                    ("buckets".to_owned(), buckets_value(&s.buckets)),
                    ("breaker".to_owned(), breaker_value(s.breaker)),
                ]);
                (s.scope.clone(), doc.to_json_text())
            })
            .collect()
    }
}

fn invalid(message: impl Into<String>) -> InputError {
    InputError::new(
        InputErrorCode::InvalidFleetView,
        format!("not a fleet view: {}", message.into()),
    )
}

fn field<'a>(entries: &'a [(String, Value)], name: &str) -> Result<&'a Value, InputError> {
    entries
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
        .ok_or_else(|| invalid(format!("`{name}` is missing")))
}

fn count(value: &Value, name: &str) -> Result<u64, InputError> {
    match value {
        Value::Int(n) => u64::try_from(*n).map_err(|_| invalid(format!("`{name}` is negative"))),
        // cjson writes integers past 2^53 in exponent form.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Value::Float(f) if f.is_finite() && *f >= 0.0 && f.fract() == 0.0 => Ok(*f as u64),
        _ => Err(invalid(format!("`{name}` is not a count"))),
    }
}

impl ScopeView {
    /// Reads the store script's reply for one scope; the seq it was read
    /// after comes with it.
    ///
    /// # Errors
    /// `invalid_fleet_view` for text that is not such a document.
    pub fn from_json(text: &str) -> Result<(u64, ScopeView), InputError> {
        let doc = Value::from_json(text).map_err(|e| invalid(e.to_string()))?;
        let Value::Map(entries) = &doc else {
            return Err(invalid("not an object"));
        };
        let Value::Text(scope) = field(entries, "scope")? else {
            return Err(invalid("`scope` is not text"));
        };
        let seq = count(field(entries, "seq")?, "seq")?;
        let bucket_ms = count(field(entries, "bucket_ms")?, "bucket_ms")?;
        let mut buckets = Vec::new();
        match field(entries, "buckets")? {
            Value::List(items) => {
                for item in items {
                    let Value::List(triple) = item else {
                        return Err(invalid("a bucket is not [index, first_attempts, retries]"));
                    };
                    let [index, requests, retries] = triple.as_slice() else {
                        return Err(invalid("a bucket is not [index, first_attempts, retries]"));
                    };
                    let tally = Tally {
                        requests: count(requests, "first_attempts")?,
                        retries: count(retries, "retries")?,
                    };
                    buckets.push((count(index, "index")?, tally));
                }
            }
            Value::Map(empty) if empty.is_empty() => {}
            _ => return Err(invalid("`buckets` is not a list")),
        }
        crate::sort::sort_by(&mut buckets, |a, b| a.0 < b.0);
        let open_until = match entries.iter().find(|(k, _)| k == "open_until") {
            None | Some((_, Value::Null)) => None,
            Some((_, value)) => Some(count(value, "open_until")?),
        };
        let closed_until = match entries.iter().find(|(k, _)| k == "closed_until") {
            None | Some((_, Value::Null)) => None,
            Some((_, value)) => Some(count(value, "closed_until")?),
        };
        let lease = match entries.iter().find(|(k, _)| k == "lease") {
            None => false,
            Some((_, Value::Bool(held))) => *held,
            Some(_) => return Err(invalid("`lease` is not a boolean")),
        };
        Ok((
            seq,
            ScopeView {
                scope: scope.clone(),
                bucket_ms,
                buckets,
                open_until,
                closed_until,
                lease,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tally::ScopeDelta;
    use super::*;

    #[test]
    fn a_delta_is_one_document_per_scope() {
        let delta = FleetDelta {
            seq: 4,
            store_now_ms: 10_000,
            scopes: vec![ScopeDelta {
                scope: "api".into(),
                bucket_ms: 1000,
                window_ms: 10_000,
                buckets: vec![(
                    9,
                    Tally {
                        requests: 3,
                        retries: 1,
                    },
                )],
                breaker: Some(BreakerFacts {
                    opened_until: Some(70_000),
                    closed_until: None,
                    wants_probe: false,
                    lease_ms: 60_000,
                }),
            }],
        };
        assert_eq!(
            delta.scope_texts(),
            vec![(
                "api".to_owned(),
                concat!(
                    r#"{"scope":"api","seq":4,"bucket_ms":1000,"window_ms":10000,"buckets":[[9,3,1]],"#,
                    r#""breaker":{"opened_until":70000,"closed_until":null,"wants_probe":false,"lease_ms":60000}}"#
                )
                .to_owned()
            )]
        );
    }

    #[test]
    fn views_read_as_the_script_writes_them() {
        let (seq, view) = ScopeView::from_json(
            r#"{"scope":"api","seq":4,"bucket_ms":1000,"buckets":[[10,2,0],[9,3,1]]}"#,
        )
        .unwrap();
        assert_eq!(seq, 4);
        assert_eq!(
            view.buckets,
            vec![
                (
                    9,
                    Tally {
                        requests: 3,
                        retries: 1
                    }
                ),
                (
                    10,
                    Tally {
                        requests: 2,
                        retries: 0
                    }
                )
            ]
        );
        let (_, empty) =
            ScopeView::from_json(r#"{"scope":"api","seq":0,"bucket_ms":1000,"buckets":{}}"#)
                .unwrap();
        assert!(empty.buckets.is_empty());
        assert_eq!((empty.open_until, empty.lease), (None, false));
        let (_, open) =
            ScopeView::from_json(r#"{"scope":"api","seq":1,"bucket_ms":1000,"buckets":{},"open_until":5000,"lease":true}"#).unwrap();
        assert_eq!((open.open_until, open.lease), (Some(5000), true));
        for bad in [
            "[]",
            r#"{"scope":"api"}"#,
            r#"{"scope":"api","seq":-1,"bucket_ms":1,"buckets":[]}"#,
            r#"{"scope":"api","seq":1,"bucket_ms":1,"buckets":[[1,2]]}"#,
        ] {
            assert_eq!(
                ScopeView::from_json(bad).unwrap_err().code(),
                InputErrorCode::InvalidFleetView,
                "{bad}"
            );
        }
    }
}
