//! Admissions and decisions: what a call's host acts on.

use crate::decision::{Admission, AttemptPlan, Decision, Done, GiveUp, Retry};
use crate::schema::{Emit, Out};

impl Emit for AttemptPlan {
    fn emit(&self, o: &mut Out) {
        o.uint("attempt", self.attempt);
        o.uint("max_attempts", self.max_attempts);
        o.opt_duration("timeout", self.timeout_ms);
        o.opt_duration("connect_timeout", self.connect_timeout_ms);
        o.opt_duration("remaining", self.remaining_ms);
        o.opt_text("idempotency_key", self.idempotency_key.as_deref());
    }
}

impl Emit for GiveUp {
    fn emit(&self, o: &mut Out) {
        o.code("reason", self.reason.code());
        o.uint("attempts", self.attempts);
        o.duration("total", self.total_ms);
        o.opt_text("matched", self.matched.map(|m| m.code()).as_deref());
        o.opt_code("class", self.class.map(|c| c.code()));
        o.opt_instant("retry_at", self.retry_at);
        o.text("observation", &self.observation);
        o.bool("was_retryable", self.was_retryable);
    }
}

impl Emit for Retry {
    fn emit(&self, o: &mut Out) {
        o.duration("delay", self.delay_ms);
        o.uint("attempt", self.attempt);
        o.text("matched", &self.matched.code());
        o.code("class", self.class.code());
        o.code("source", self.source.code());
        o.duration("backoff", self.backoff_ms);
    }
}

impl Emit for Done {
    fn emit(&self, o: &mut Out) {
        o.uint("attempts", self.attempts);
        o.duration("total", self.total_ms);
    }
}

impl Emit for Admission {
    fn emit(&self, o: &mut Out) {
        match self {
            Admission::Proceed(plan) => {
                o.code("kind", "proceed");
                plan.emit(o);
            }
            Admission::Reject(give_up) => {
                o.code("kind", "reject");
                give_up.emit(o);
            }
        }
    }
}

impl Emit for Decision {
    fn emit(&self, o: &mut Out) {
        o.code("kind", self.kind());
        match self {
            Decision::Done(done) => done.emit(o),
            Decision::Retry(retry) => retry.emit(o),
            Decision::GiveUp(give_up) => give_up.emit(o),
        }
    }
}
