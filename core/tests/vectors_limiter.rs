//! Runs `tests/vectors/core_only/limiter.json`: the adaptive concurrency
//! limiter (`stoic_core::load_control::Limiter`) in virtual time, against
//! a small model of a server, and its settings' config errors.
//!
//! The file sits in `core_only/` until a binding exposes the limiter.

#![cfg(feature = "load_control")]

#[path = "support/vectors.rs"]
mod vectors;

use std::collections::{BTreeMap, VecDeque};

use serde_json::{json, Value};
use stoic_core::load_control::{
    Acquired, LimitOutcome, Limiter, LimiterConfig, Permit, QueueEvent, Ticket,
};
use stoic_core::Instant;

const FILE: &str = "core_only/limiter.json";

fn ms(at: Option<Instant>) -> Value {
    at.map_or(Value::Null, |at| json!(at.as_millis()))
}

/// Compares the fields `expect` lists; `expect_range` gives `[lo, hi]`.
fn check(here: &str, actual: &Value, step: &Value) {
    for (key, want) in step["expect"].as_object().into_iter().flatten() {
        assert_eq!(&actual[key], want, "{here}: field `{key}` of {actual}");
    }
    for (key, range) in step["expect_range"].as_object().into_iter().flatten() {
        let got = actual[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{here}: {key}"));
        let (lo, hi) = (range[0].as_u64().unwrap(), range[1].as_u64().unwrap());
        assert!(
            (lo..=hi).contains(&got),
            "{here}: {key} = {got} not in [{lo}, {hi}]"
        );
    }
}

fn outcome_of(o: &Value) -> LimitOutcome {
    match o["kind"].as_str().unwrap() {
        "success" => LimitOutcome::Success {
            latency_ms: o["latency_ms"].as_u64().unwrap(),
        },
        "dropped" => LimitOutcome::Dropped,
        "ignored" => LimitOutcome::Ignored,
        other => panic!("unknown outcome {other}"),
    }
}

/// The server a `round` or `steady` step sends to: answers take
/// `base_ms`, plus `per_extra_ms` per request beyond `capacity` in the
/// round; with `drop_over`, requests beyond it are dropped; `ignored`
/// makes every outcome ignored. (`first_ms` is read by `round`.)
fn server_outcome(server: &Value, admitted: u64, position: u64) -> LimitOutcome {
    if server["ignored"] == json!(true) {
        return LimitOutcome::Ignored;
    }
    if let Some(over) = server["drop_over"].as_u64() {
        if position > over {
            return LimitOutcome::Dropped;
        }
    }
    let base = server["base_ms"].as_u64().unwrap();
    let extra = server["per_extra_ms"].as_u64().unwrap_or(0);
    let capacity = server["capacity"].as_u64().unwrap_or(u64::MAX);
    LimitOutcome::Success {
        latency_ms: base + extra * admitted.saturating_sub(capacity),
    }
}

struct Runner {
    limiter: Limiter,
    permits: BTreeMap<String, Permit>,
    tickets: BTreeMap<String, Ticket>,
    /// The permits of a `steady` load, oldest first.
    pipeline: VecDeque<Permit>,
    steps_run: usize,
}

impl Runner {
    fn run(&mut self, steps: &[Value], base: u64, at: &str) {
        for (index, step) in steps.iter().enumerate() {
            let here = format!("{at}[{index}]");
            let t = base + step["t_ms"].as_u64().unwrap_or(0);
            if let Some(times) = step["repeat"].as_u64() {
                let every = step["every_ms"].as_u64().unwrap_or(0);
                let inner = step["steps"].as_array().unwrap();
                for i in 0..times {
                    self.run(inner, t + i * every, &format!("{here}#{i}"));
                }
                // After the block: the limiter's status.
                let actual = self.status();
                check(&here, &actual, step);
            } else {
                self.step(step, t, &here);
            }
        }
    }

    fn status(&self) -> Value {
        let s = self.limiter.status();
        json!({
            "limit": s.limit,
            "in_flight": s.in_flight,
            "waiting": s.waiting,
            "min_rtt_ms": s.min_rtt_ms,
            "measuring": s.measuring,
            "next_probe_ms": ms(s.next_probe_at),
        })
    }

    fn acquired(&mut self, answer: Acquired, name: Option<&str>) -> Value {
        match answer {
            Acquired::Admitted(permit) => {
                if let Some(name) = name {
                    self.permits.insert(name.to_owned(), permit);
                }
                json!({"kind": "admitted", "in_flight": permit.in_flight(), "limit": permit.limit()})
            }
            Acquired::Queued(ticket) => {
                if let Some(name) = name {
                    self.tickets.insert(name.to_owned(), ticket);
                }
                json!({"kind": "queued", "ticket": ticket.id, "until_ms": ticket.until.as_millis()})
            }
            Acquired::Rejected(r) => {
                json!({"kind": "rejected", "reason": r.reason.code(), "limit": r.limit})
            }
        }
    }

    fn step(&mut self, step: &Value, t: u64, here: &str) {
        self.steps_run += 1;
        let now = Instant::from_millis(t);
        let name = step["as"].as_str();
        let actual = match step["op"].as_str().unwrap() {
            "acquire" => {
                let answer = self.limiter.acquire(now);
                self.acquired(answer, name)
            }
            "release" => {
                let permit = self.permits[step["permit"].as_str().unwrap()];
                let counted = self
                    .limiter
                    .release(now, permit, outcome_of(&step["outcome"]));
                json!({"counted": counted, "limit": self.limiter.limit()})
            }
            "poll" => match self.limiter.poll(now) {
                None => json!({"kind": "none"}),
                Some(QueueEvent::TimedOut { ticket }) => {
                    json!({"kind": "timed_out", "ticket": ticket.id})
                }
                Some(QueueEvent::Admitted { ticket, permit }) => {
                    if let Some(name) = name {
                        self.permits.insert(name.to_owned(), permit);
                    }
                    json!({"kind": "admitted", "ticket": ticket.id, "in_flight": permit.in_flight()})
                }
            },
            "cancel" => {
                let ticket = self.tickets[step["ticket"].as_str().unwrap()];
                json!({"cancelled": self.limiter.cancel(ticket)})
            }
            "round" => self.round(step, now),
            "steady" => self.steady(step, now),
            "status" => {
                let mut s = self.status();
                s["next_timeout_ms"] = ms(self.limiter.next_timeout());
                s
            }
            other => panic!("{here}: unknown op {other}"),
        };
        check(here, &actual, step);
    }

    /// `concurrency` requests at `now`; the admitted ones come back in
    /// order at `now + latency` with the server's outcomes.
    fn round(&mut self, step: &Value, now: Instant) -> Value {
        let wanted = step["concurrency"].as_u64().unwrap();
        let mut admitted = Vec::new();
        let mut rejected = 0;
        for _ in 0..wanted {
            match self.limiter.acquire(now) {
                Acquired::Admitted(permit) => {
                    assert!(permit.in_flight() <= permit.limit());
                    admitted.push(permit);
                }
                Acquired::Rejected(_) => rejected += 1,
                Acquired::Queued(_) => panic!("rounds run without a queue"),
            }
        }
        let n = admitted.len() as u64;
        for (i, permit) in admitted.into_iter().enumerate() {
            let mut outcome = server_outcome(&step["server"], n, i as u64 + 1);
            // `first_ms`: the round's first answer is a lucky fast one.
            if let (0, Some(ms), LimitOutcome::Success { .. }) =
                (i, step["server"]["first_ms"].as_u64(), outcome)
            {
                outcome = LimitOutcome::Success { latency_ms: ms };
            }
            let latency = match outcome {
                LimitOutcome::Success { latency_ms } => latency_ms,
                _ => step["server"]["base_ms"].as_u64().unwrap(),
            };
            assert!(self
                .limiter
                .release(now.saturating_add(latency), permit, outcome));
        }
        json!({"admitted": n, "rejected": rejected, "limit": self.limiter.limit(),
               "min_rtt_ms": self.limiter.status().min_rtt_ms,
               "measuring": self.limiter.status().measuring})
    }

    /// Sustained load: the oldest permit of the pipeline comes back after
    /// `server.base_ms`, then new requests go out until `concurrency` are
    /// in flight or the limiter refuses.
    fn steady(&mut self, step: &Value, now: Instant) -> Value {
        let wanted = step["concurrency"].as_u64().unwrap();
        if let Some(permit) = self.pipeline.pop_front() {
            let n = self.pipeline.len() as u64 + 1;
            let outcome = server_outcome(&step["server"], n, 1);
            assert!(self.limiter.release(now, permit, outcome));
        }
        while (self.pipeline.len() as u64) < wanted {
            match self.limiter.acquire(now) {
                Acquired::Admitted(permit) => self.pipeline.push_back(permit),
                _ => break,
            }
        }
        json!({"in_flight": self.pipeline.len(), "limit": self.limiter.limit(),
               "min_rtt_ms": self.limiter.status().min_rtt_ms})
    }
}

#[test]
fn limiter_scenarios() {
    let doc = vectors::load(FILE, "limiter");
    let mut total = 0;
    for scenario in doc["scenarios"].as_array().unwrap() {
        let id = scenario["id"].as_str().unwrap();
        let config = LimiterConfig::from_json(&scenario["config"].to_string())
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        let mut runner = Runner {
            limiter: Limiter::new(config, scenario["seed"].as_u64().unwrap()).unwrap(),
            permits: BTreeMap::new(),
            tickets: BTreeMap::new(),
            pipeline: VecDeque::new(),
            steps_run: 0,
        };
        runner.run(scenario["steps"].as_array().unwrap(), 0, id);
        total += runner.steps_run;
    }
    assert!(total >= 300, "only {total} steps ran");
}

#[test]
fn limiter_config_errors() {
    let doc = vectors::load(FILE, "limiter");
    let cases = vectors::run_section_cases::<LimiterConfig>(&doc, "limiter");
    assert!(cases >= 10, "only {cases} config errors");
}
