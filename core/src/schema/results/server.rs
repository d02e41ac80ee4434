//! Server hints, server-side idempotency decisions and stored entries, and
//! a restore's report.

use crate::hints::{HintSource, ServerHint};
use crate::schema::{Check, Emit, Fields, Out, Section, Seg};
use crate::server_idempotency::{EntryState, ServerDecision, StoredEntry};
use crate::state::RestoreReport;

#[derive(Clone, Copy)]
enum HintKind {
    Delay,
    Bounded,
    DoNotRetry,
}

const HINT_KINDS: [HintKind; 3] = [HintKind::Delay, HintKind::Bounded, HintKind::DoNotRetry];

impl HintKind {
    const fn code(self) -> &'static str {
        match self {
            HintKind::Delay => "delay",
            HintKind::Bounded => "bounded",
            HintKind::DoNotRetry => "do_not_retry",
        }
    }
}

/// A hint a host parsed once and hands back with an outcome.
impl Section for ServerHint {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let fallback = ServerHint::DoNotRetry {
            source: HintSource::RetryAfter,
        };
        if !f.require(
            "kind",
            false,
            "(\"delay\", \"bounded\" or \"do_not_retry\")",
        ) {
            f.ignore_rest();
            return fallback;
        }
        let Some(kind) = f.opt_code("kind", &HINT_KINDS, |k| k.code()) else {
            f.ignore_rest();
            return fallback;
        };
        f.require("source", false, "");
        let source = f.code("source", HintSource::RetryAfter, &HintSource::ALL, |s| {
            s.code()
        });
        match kind {
            HintKind::Delay => ServerHint::Delay {
                delay_ms: f.duration("delay", 0),
                source,
            },
            HintKind::Bounded => ServerHint::Bounded {
                hint_ms: f.duration("hint", 0),
                source,
            },
            HintKind::DoNotRetry => ServerHint::DoNotRetry { source },
        }
    }

    fn write(&self, o: &mut Out) {
        match *self {
            ServerHint::Delay { delay_ms, source } => {
                o.code("kind", "delay");
                o.duration("delay", delay_ms);
                o.code("source", source.code());
            }
            ServerHint::Bounded { hint_ms, source } => {
                o.code("kind", "bounded");
                o.duration("hint", hint_ms);
                o.code("source", source.code());
            }
            ServerHint::DoNotRetry { source } => {
                o.code("kind", "do_not_retry");
                o.code("source", source.code());
            }
        }
    }

    fn check(&self, _: &mut Check) {}
}

#[derive(Clone, Copy)]
enum EntryKind {
    InFlight,
    Completed,
}

const ENTRY_KINDS: [EntryKind; 2] = [EntryKind::InFlight, EntryKind::Completed];

impl EntryKind {
    const fn code(self) -> &'static str {
        match self {
            EntryKind::InFlight => "in_flight",
            EntryKind::Completed => "completed",
        }
    }
}

impl Section for EntryState {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let fallback = EntryState::InFlight { since_unix_ms: 0 };
        if !f.require("kind", false, "(\"in_flight\" or \"completed\")") {
            f.ignore_rest();
            return fallback;
        }
        let Some(kind) = f.opt_code("kind", &ENTRY_KINDS, |k| k.code()) else {
            f.ignore_rest();
            return fallback;
        };
        match kind {
            EntryKind::InFlight => EntryState::InFlight {
                since_unix_ms: f.duration("since_unix", 0),
            },
            EntryKind::Completed => {
                f.require("status", false, "for a completed entry");
                EntryState::Completed {
                    at_unix_ms: f.duration("at_unix", 0),
                    status: u16::try_from(f.u32("status", 0)).unwrap_or(u16::MAX),
                }
            }
        }
    }

    fn write(&self, o: &mut Out) {
        match *self {
            EntryState::InFlight { since_unix_ms } => {
                o.code("kind", "in_flight");
                o.duration("since_unix", since_unix_ms);
            }
            EntryState::Completed { at_unix_ms, status } => {
                o.code("kind", "completed");
                o.duration("at_unix", at_unix_ms);
                o.uint("status", status);
            }
        }
    }

    fn check(&self, c: &mut Check) {
        if let EntryState::Completed { status, .. } = *self {
            c.range((100..=999).contains(&status), Seg::field("status"), |_| {
                format!("must be an HTTP status (100-999), got {status}")
            });
        }
    }
}

/// An entry the host's store kept and hands back.
impl Section for StoredEntry {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require("fingerprint", false, "");
        f.require("state", false, "");
        StoredEntry {
            fingerprint: f.text("fingerprint", ""),
            state: f.section("state", EntryState::InFlight { since_unix_ms: 0 }),
        }
    }

    fn write(&self, o: &mut Out) {
        o.text("fingerprint", &self.fingerprint);
        o.section("state", &self.state);
    }

    fn check(&self, c: &mut Check) {
        c.within(Seg::field("state"), |c| self.state.check(c));
    }
}

impl Emit for ServerDecision {
    fn emit(&self, o: &mut Out) {
        match self {
            ServerDecision::Proceed { record, replaces } => {
                o.code("kind", "proceed");
                o.opt_section("record", record.as_ref());
                o.bool("replaces", *replaces);
            }
            ServerDecision::Replay { status } => {
                o.code("kind", "replay");
                o.uint("status", *status);
            }
            ServerDecision::Refuse {
                refusal,
                status,
                detail,
                retry_after_s,
            } => {
                o.code("kind", "refuse");
                o.code("refusal", refusal.code());
                o.uint("status", *status);
                o.text("detail", detail);
                o.opt_uint("retry_after_s", *retry_after_s);
            }
        }
    }
}

impl Emit for RestoreReport {
    fn emit(&self, o: &mut Out) {
        o.uint("restored", self.restored);
        let reset = self
            .reset
            .iter()
            .map(|scope| crate::schema::Value::Text(scope.clone()))
            .collect();
        o.list("reset", reset);
    }
}
