//! The core's admissions and decisions as WIT values.

use stoic_core::decision::{AttemptPlan, Done, GiveUp, Retry};
use stoic_core::{Admission, Decision, Instant};

use crate::bindings::exports::stoic::engine::policy as wit;
use crate::convert::class;

pub(super) fn admission(admission: Admission) -> wit::Admission {
    match admission {
        Admission::Proceed(plan) => wit::Admission::Proceed(attempt_plan(plan)),
        Admission::Reject(g) => wit::Admission::Reject(give_up(g)),
    }
}

pub(super) fn decision(decision: Decision) -> wit::Decision {
    match decision {
        Decision::Done(d) => wit::Decision::Done(done(d)),
        Decision::Retry(r) => wit::Decision::Retry(retry(&r)),
        Decision::GiveUp(g) => wit::Decision::GiveUp(give_up(g)),
    }
}

fn attempt_plan(plan: AttemptPlan) -> wit::AttemptPlan {
    wit::AttemptPlan {
        attempt: plan.attempt,
        max_attempts: plan.max_attempts,
        timeout_ms: plan.timeout_ms,
        connect_timeout_ms: plan.connect_timeout_ms,
        remaining_ms: plan.remaining_ms,
        idempotency_key: plan.idempotency_key.map(|k| k.to_string()),
    }
}

pub(super) fn give_up(g: GiveUp) -> wit::GiveUp {
    wit::GiveUp {
        reason: g.reason.code().to_owned(),
        attempts: g.attempts,
        total_ms: g.total_ms,
        matched: g.matched.map(|m| m.code()),
        class: g.class.map(class),
        retry_at: g.retry_at.map(Instant::as_millis),
        observation: g.observation,
        was_retryable: g.was_retryable,
    }
}

fn retry(r: &Retry) -> wit::Retry {
    wit::Retry {
        delay_ms: r.delay_ms,
        attempt: r.attempt,
        matched: r.matched.code(),
        class: class(r.class),
        source: r.source.code().to_owned(),
        backoff_ms: r.backoff_ms,
    }
}

pub(super) const fn done(d: Done) -> wit::Done {
    wit::Done {
        attempts: d.attempts,
        total_ms: d.total_ms,
    }
}
