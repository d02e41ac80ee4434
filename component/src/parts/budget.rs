//! The `budget` resource.

use std::cell::RefCell;

use stoic_core::budget::{RetryBudget, RetryBudgetConfig, RetryCost, RetryTicket};
use stoic_core::state::{read_snapshot, write_snapshot};
use stoic_core::Instant;

use crate::bindings::exports::stoic::engine::parts::{
    self as wit, BudgetEvent, GuestBudget, RetryCost as WitCost, RetryGrant, Ticket,
};
use crate::bindings::exports::stoic::engine::types::{ConfigError, InputError};
use crate::convert::{config, config_error, input_error, instant, json};

#[derive(Debug)]
pub struct Budget(RefCell<RetryBudget>);

fn ticket_in(t: &Ticket) -> RetryTicket {
    RetryTicket {
        id: t.id,
        token_cost: t.token_cost,
        floor_slot: t.floor_slot.map(Instant::from_millis),
    }
}

impl GuestBudget for Budget {
    fn create(config_json: String) -> Result<wit::Budget, ConfigError> {
        let parsed: RetryBudgetConfig = config(&config_json)?;
        let inner = RetryBudget::new(parsed).map_err(|e| config_error(&e))?;
        Ok(wit::Budget::new(Budget(RefCell::new(inner))))
    }

    fn from_snapshot(snapshot: String) -> Result<wit::Budget, InputError> {
        let inner = read_snapshot(&snapshot).map_err(|e| input_error(&e))?;
        Ok(wit::Budget::new(Budget(RefCell::new(inner))))
    }

    fn snapshot(&self) -> String {
        write_snapshot(&*self.0.borrow())
    }

    fn reconfigure(&self, config_json: String) -> Result<(), ConfigError> {
        let parsed: RetryBudgetConfig = config(&config_json)?;
        self.0
            .borrow_mut()
            .reconfigure(parsed)
            .map_err(|e| config_error(&e))
    }

    fn on_first_attempt(&self, now_ms: u64) {
        self.0.borrow_mut().on_first_attempt(instant(now_ms));
    }

    fn try_retry(&self, now_ms: u64, cost: WitCost) -> RetryGrant {
        let cost = match cost {
            WitCost::Normal => RetryCost::Normal,
            WitCost::Timeout => RetryCost::Timeout,
            WitCost::Throttling => RetryCost::Throttling,
        };
        match self.0.borrow_mut().try_retry(instant(now_ms), cost) {
            Ok(t) => RetryGrant::Allowed(Ticket {
                id: t.id,
                token_cost: t.token_cost,
                floor_slot: t.floor_slot.map(Instant::as_millis),
            }),
            Err(refusal) => RetryGrant::Refused(refusal.code().to_owned()),
        }
    }

    fn release(&self, ticket: Ticket) -> bool {
        self.0.borrow_mut().release(ticket_in(&ticket))
    }

    fn on_attempt_success(&self, now_ms: u64, ticket: Option<Ticket>) {
        let ticket = ticket.as_ref().map(ticket_in);
        self.0
            .borrow_mut()
            .on_attempt_success(instant(now_ms), ticket);
    }

    fn on_attempt_failure(&self, now_ms: u64) {
        self.0.borrow_mut().on_attempt_failure(instant(now_ms));
    }

    fn status_json(&self, now_ms: u64) -> String {
        json(&self.0.borrow().status(instant(now_ms)))
    }

    fn poll_event(&self) -> Option<BudgetEvent> {
        let event = self.0.borrow_mut().poll_event()?;
        let stoic_core::budget::BudgetEvent::Exhausted { budget, at } = event;
        Some(BudgetEvent {
            kind: event.code().to_owned(),
            budget: budget.code().to_owned(),
            at: at.as_millis(),
            message: event.message().to_owned(),
        })
    }
}
