//! `classify`: overrides of how statuses and network errors are judged.

use crate::classify::{AmbiguousRetry, Class, ClassifyConfig, NetworkErrorKind};
use crate::error::ConfigErrorCode;
use crate::schema::{code_value, quoted, Check, Fields, Out, Section, Seg, Value};

const AMBIGUOUS: [AmbiguousRetry; 3] = [
    AmbiguousRetry::IfIdempotent,
    AmbiguousRetry::Always,
    AmbiguousRetry::Never,
];

/// An HTTP status, from a table key or a list item.
fn status(check: &mut Check, value: &Value) -> Option<u16> {
    let number = match value {
        Value::Int(n) => Some(*n),
        Value::Text(text) => text.parse::<i128>().ok(),
        _ => None,
    };
    match number.map(u16::try_from) {
        Some(Ok(s)) if (100..=999).contains(&s) => Some(s),
        Some(_) => {
            check.fail(
                ConfigErrorCode::OutOfRange,
                "an HTTP status is between 100 and 999",
            );
            None
        }
        None => {
            check.fail(
                ConfigErrorCode::WrongType,
                format!("expected an HTTP status, got {}", value.kind()),
            );
            None
        }
    }
}

/// A table entry's class, judged at the entry's own path.
fn class(check: &mut Check, value: &Value) -> Option<Class> {
    code_value(check, None, value, &Class::ALL, |c| c.code())
}

impl Section for ClassifyConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = ClassifyConfig::default();
        let mut status_table = d.status.clone();
        f.table("status", |c, key, value| {
            let code = status(c, &Value::Text(key.to_owned()));
            if let (Some(code), Some(class)) = (code, class(c, value)) {
                status_table.insert(code, class);
            }
        });
        let mut network = d.network.clone();
        f.table("network", |c, key, value| {
            let kind = NetworkErrorKind::from_code(key);
            if kind.is_none() {
                c.fail(
                    ConfigErrorCode::InvalidValue,
                    format!(
                        "unknown network error kind; expected one of {}",
                        quoted(NetworkErrorKind::ALL.iter().map(|k| k.code()))
                    ),
                );
            }
            if let (Some(kind), Some(class)) = (kind, class(c, value)) {
                network.insert(kind, class);
            }
        });
        let ambiguous = f.code("ambiguous", d.ambiguous, &AMBIGUOUS, |a| a.code());
        let mut statuses = crate::sorted::SortedSet::new();
        let given = f.list("ambiguous_status", |c, item| {
            if let Some(s) = status(c, item) {
                statuses.insert(s);
            }
        });
        ClassifyConfig {
            status: status_table,
            network,
            ambiguous,
            ambiguous_status: if given.is_some() {
                statuses
            } else {
                d.ambiguous_status
            },
        }
    }

    fn write(&self, o: &mut Out) {
        let status = self
            .status
            .iter()
            .map(|(s, c)| (s.to_string(), Value::Text(c.code().to_owned())))
            .collect();
        o.table("status", status);
        let network = self
            .network
            .iter()
            .map(|(k, c)| (k.code().to_owned(), Value::Text(c.code().to_owned())))
            .collect();
        o.table("network", network);
        o.code("ambiguous", self.ambiguous.code());
        let statuses = self
            .ambiguous_status
            .iter()
            .map(|s| Value::Int(i128::from(*s)))
            .collect();
        o.list("ambiguous_status", statuses);
    }

    fn check(&self, c: &mut Check) {
        // Statuses are checked as they are read; a config built in Rust
        // may still hold one out of range.
        c.within(Seg::field("status"), |c| {
            for s in self.status.keys().filter(|s| !(100..=999).contains(*s)) {
                let seg = c.data_key(&s.to_string());
                c.fail_at(
                    seg,
                    ConfigErrorCode::OutOfRange,
                    "an HTTP status is between 100 and 999",
                );
            }
        });
        if self
            .ambiguous_status
            .iter()
            .any(|s| !(100..=999).contains(s))
        {
            c.fail_at(
                Seg::field("ambiguous_status"),
                ConfigErrorCode::OutOfRange,
                "an HTTP status is between 100 and 999",
            );
        }
    }
}
