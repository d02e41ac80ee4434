//! A standalone retry budget's tickets, events and status.

use crate::budget::{BudgetEvent, BudgetKind, BudgetStatus, RetryTicket};
use crate::budget::{GrpcStatus, RatioStatus, RunCapStatus, TokenBucketStatus};
use crate::schema::{Check, Emit, Fields, Out, Section};
use crate::state::AS_WRITTEN;
use crate::time::Instant;

/// A ticket comes back from the host when its retry is cancelled.
impl Section for RetryTicket {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        RetryTicket {
            id: f.u64("id", 0),
            token_cost: f.opt_u32("token_cost"),
            floor_slot: f.opt_instant("floor_slot"),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uint("id", self.id);
        match self.token_cost {
            Some(cost) => o.uint("token_cost", cost),
            None => o.opt_uint("token_cost", None),
        }
        // Absent rather than null: a ticket without a floor slot is the
        // common case, and older hosts wrote it so.
        if let Some(slot) = self.floor_slot {
            o.instant("floor_slot", slot);
        }
    }

    fn check(&self, _: &mut Check) {}
}

/// Handed out, and kept queued in a budget's snapshot.
impl Section for BudgetEvent {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["kind", "budget", "at"], AS_WRITTEN);
        // The one kind there is: read so that another is named as wrong.
        f.code("kind", (), &[()], |()| "budget_exhausted");
        BudgetEvent::Exhausted {
            budget: f.code("budget", BudgetKind::Ratio, &BudgetKind::ALL, |k| k.code()),
            at: f.instant("at", Instant::ZERO),
        }
    }

    fn write(&self, o: &mut Out) {
        o.code("kind", self.code());
        match *self {
            BudgetEvent::Exhausted { budget, at } => {
                o.code("budget", budget.code());
                o.instant("at", at);
            }
        }
    }

    fn check(&self, _: &mut Check) {}
}

impl Emit for RatioStatus {
    fn emit(&self, o: &mut Out) {
        o.uint("requests", self.requests);
        o.uint("retries", self.retries);
        o.uint("max_retries", self.max_retries);
    }
}

impl Emit for RunCapStatus {
    fn emit(&self, o: &mut Out) {
        o.uint("used", self.used);
        o.uint("max_retries", self.max_retries);
    }
}

impl Emit for TokenBucketStatus {
    fn emit(&self, o: &mut Out) {
        o.uint("tokens", self.tokens);
        o.uint("capacity", self.capacity);
    }
}

impl Emit for GrpcStatus {
    fn emit(&self, o: &mut Out) {
        o.uint("milli_tokens", self.milli_tokens);
        o.uint("max_milli_tokens", self.max_milli_tokens);
        o.bool("retry_allowed", self.retry_allowed);
    }
}

impl Emit for BudgetStatus {
    fn emit(&self, o: &mut Out) {
        o.opt_section("ratio", self.ratio.as_ref());
        o.opt_section("run_cap", self.run_cap.as_ref());
        o.opt_section("token_bucket", self.token_bucket.as_ref());
        o.opt_section("grpc", self.grpc.as_ref());
    }
}
