//! A byte-driven interpreter of policy operations, shared by the proptest
//! (`tests/policy_props.rs`) and the cargo-fuzz target (`fuzz/fuzz_targets/policy_ops.rs`):
//! random sequences of start / before_attempt / on_outcome / cancel / drain /
//! time moves / snapshot-restore across several scopes, checking the
//! engine's invariants after every step. Returns a transcript so callers can
//! also check that the same bytes give the same decisions.

use stoic_core::hints::{HintSource, ServerHint};
use stoic_core::schema::{emit_json, Dialect};
use stoic_core::{
    Admission, Call, CallSpec, Config, Decision, Instant, NetworkErrorKind, Outcome, Policy,
    PolicyState,
};

struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn next(&mut self) -> Option<u8> {
        let b = self.data.get(self.at).copied();
        self.at += 1;
        b
    }
    fn u8(&mut self) -> u8 {
        self.next().unwrap_or(0)
    }
    fn u16(&mut self) -> u16 {
        u16::from(self.u8()) << 8 | u16::from(self.u8())
    }
}

const STRATEGIES: [&str; 7] = [
    "none",
    "constant",
    "linear",
    "exponential",
    "full_jitter",
    "equal_jitter",
    "decorrelated_jitter",
];
const STATUSES: [u16; 8] = [200, 201, 404, 422, 429, 500, 503, 504];
const SCOPES: [&str; 3] = ["", "api", "billing"];

fn config_from(b: &mut Bytes<'_>) -> Config {
    let strategy = STRATEGIES[usize::from(b.u8()) % STRATEGIES.len()];
    let base = u64::from(b.u16() % 2000) + 1;
    let cap = base + u64::from(b.u16());
    let total = match b.u8() % 3 {
        0 => "null".to_owned(),
        _ => (u64::from(b.u16()) * 10 + 1).to_string(),
    };
    let breaker = match b.u8() % 3 {
        0 => "null".to_owned(),
        1 => format!(
            r#"{{"trip": {{"kind": "consecutive_failures", "threshold": {}}}, "cooldown_ms": {}, "half_open": {{"max_probes": {}, "success_threshold": {}}}}}"#,
            b.u8() % 6 + 1,
            u64::from(b.u16()) + 1,
            b.u8() % 3 + 1,
            b.u8() % 3 + 1
        ),
        _ => format!(
            r#"{{"trip": {{"kind": "failure_rate", "window": {{"kind": "time", "duration_ms": 10000, "buckets": 10}}, "failure_rate": 0.5, "minimum_throughput": {}}}, "cooldown_ms": 5000}}"#,
            b.u8() % 10 + 1
        ),
    };
    let budget = match b.u8() % 4 {
        0 => r#"{"ratio": null}"#.to_owned(),
        1 => "{}".to_owned(),
        2 => format!(
            r#"{{"ratio": null, "run_cap": {{"max_retries": {}}}}}"#,
            b.u8()
        ),
        _ => r#"{"ratio": null, "token_bucket": {"profile": "aws_standard", "capacity": 40}}"#
            .to_owned(),
    };
    let text = format!(
        r#"{{"seed": {}, "max_attempts": {}, "backoff": {{"strategy": "{strategy}", "base_ms": {base}, "cap_ms": {cap}, "multiplier": 2.0}},
            "timeouts": {{"total_ms": {total}}}, "hints": {{"max_delay_ms": {}}}, "breaker": {breaker}, "budget": {budget},
            "max_scopes": {}, "log_records": {}}}"#,
        b.u16(),
        b.u8() % 8 + 1,
        u64::from(b.u16()) * 100,
        b.u8() % 4 + 1,
        b.u8() % 2 == 0
    );
    Config::from_json(&text).unwrap_or_else(|e| panic!("generated config rejected: {e}: {text}"))
}

/// Runs the operations in `data`, asserting invariants; returns the transcript.
pub(crate) fn run(data: &[u8]) -> Vec<String> {
    let mut b = Bytes { data, at: 0 };
    let config = config_from(&mut b);
    let max_delay = config.backoff.cap_ms.max(config.hints.max_delay_ms);
    let max_attempts = config.max_attempts;
    let mut policy = Policy::new(config.clone()).expect("validated config");
    let mut calls: Vec<Call> = Vec::new();
    let mut now: u64 = 0;
    let mut transcript = Vec::new();
    while let Some(op) = b.next() {
        let arg = b.u8();
        let t = Instant::from_millis(now);
        let pick = usize::from(arg);
        match op % 9 {
            0 => {
                let mut spec = CallSpec::new("op")
                    .in_scope(SCOPES[pick % SCOPES.len()])
                    .idempotent(arg & 8 != 0);
                if arg & 16 != 0 {
                    spec = spec.with_key("key-1");
                }
                if calls.len() < 16 {
                    calls.push(policy.start(t, spec));
                }
            }
            1 => {
                let index = pick % calls.len().max(1);
                let Some(call) = calls.get_mut(index) else {
                    continue;
                };
                let admission = policy.before_attempt(t, call);
                if let Admission::Proceed(plan) = &admission {
                    assert!(
                        plan.attempt <= max_attempts,
                        "attempt {} of {max_attempts}",
                        plan.attempt
                    );
                    assert_eq!(plan.idempotency_key.as_deref(), call.idempotency_key());
                    if let (Some(timeout), Some(left)) = (plan.timeout_ms, plan.remaining_ms) {
                        assert!(timeout <= left);
                    }
                }
                transcript.push(emit_json(&admission, Dialect::RUST));
            }
            2 | 3 => {
                let hint_byte = b.u8();
                let index = pick % calls.len().max(1);
                let Some(call) = calls.get_mut(index) else {
                    continue;
                };
                let outcome = if op % 9 == 2 {
                    Outcome::status(STATUSES[usize::from(hint_byte) % STATUSES.len()])
                } else {
                    Outcome::network(
                        NetworkErrorKind::ALL[usize::from(hint_byte) % NetworkErrorKind::ALL.len()],
                    )
                };
                let hint = match hint_byte % 5 {
                    0 => Some(ServerHint::Delay {
                        delay_ms: u64::from(arg) * 37,
                        source: HintSource::RetryAfter,
                    }),
                    1 => Some(ServerHint::DoNotRetry {
                        source: HintSource::GrpcRetryPushbackMs,
                    }),
                    _ => None,
                };
                let deadline = call.deadline().ends();
                let decision = policy.on_outcome(t, call, outcome.with_hint(hint));
                match &decision {
                    Decision::Retry(r) => {
                        assert!(
                            r.delay_ms <= max_delay,
                            "delay {} over {max_delay}",
                            r.delay_ms
                        );
                        if let Some(end) = deadline {
                            assert!(
                                t.saturating_add(r.delay_ms) < end,
                                "retry past the deadline"
                            );
                        }
                        assert!(call.attempts() < max_attempts);
                    }
                    Decision::GiveUp(g) => assert!(!g.observation.is_empty()),
                    Decision::Done(_) => {}
                }
                // A finished call repeats its answer.
                if call.is_finished() {
                    let again = policy.on_outcome(t, call, Outcome::success());
                    assert_eq!(again, decision);
                }
                transcript.push(emit_json(&decision, Dialect::RUST));
            }
            4 => now = now.saturating_add(u64::from(arg) * u64::from(b.u8()) * 7),
            5 => now = now.saturating_sub(u64::from(arg)),
            6 => {
                let index = pick % calls.len().max(1);
                let Some(call) = calls.get_mut(index) else {
                    continue;
                };
                let g = policy.cancel(t, call);
                transcript.push(g.reason.code().to_owned());
            }
            7 => {
                if arg == 255 {
                    policy.drain();
                }
                while let Some(event) = policy.poll_event() {
                    transcript.push(emit_json(&event, Dialect::RUST));
                }
            }
            _ => {
                // Portable state round-trips exactly, and a new process
                // restored from it takes the same state.
                let state = policy.snapshot_state();
                let text = state.to_json();
                let back = PolicyState::from_json(&text).expect("own snapshot parses");
                assert_eq!(back, state);
                if calls.iter().all(Call::is_finished) {
                    let mut fresh = Policy::new(config.clone()).expect("validated config");
                    let report = fresh.restore_state(back).expect("restores");
                    assert!(report.reset.is_empty());
                    // Restoring normalizes (budget rings drop buckets that
                    // fell out of their window), so the restored state is a
                    // fixed point: restoring it again changes nothing.
                    let once = fresh.snapshot_state();
                    let mut again = Policy::new(config.clone()).expect("validated config");
                    again.restore_state(once.clone()).expect("restores");
                    assert_eq!(again.snapshot_state(), once);
                    assert_eq!(once.scopes.len(), state.scopes.len());
                    if policy.is_draining() {
                        fresh.drain();
                    }
                    policy = fresh;
                    calls.clear();
                }
            }
        }
        assert!(policy.pending_events() <= stoic_core::event::EVENT_QUEUE_LIMIT);
    }
    transcript
}
