//! The metrics in a snapshot: totals, and the alert evaluator's window,
//! rule levels and queued events, read back with the checks that make the
//! evaluator one the core could have built (one state per rule in the
//! rules' order, windows shaped by the alert config, queues bounded).

use super::alerts::{AlertEvaluator, RuleState, EVENT_QUEUE_CAPACITY};
use super::metrics::Metrics;
use super::window::Window;
use super::{AlertConfig, AlertLevel, AlertRule, BreakerGauge, MetricsSnapshot};
use crate::error::ConfigErrorCode;
use crate::ring::BucketRing;
use crate::schema::{Check, Fields, Out, Section, Seg, Value};
use crate::state::AS_WRITTEN;
use crate::time::{Instant, MonotonicClamp};

impl Section for Metrics {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["clamp", "totals", "alerts"], AS_WRITTEN);
        let fallback = AlertEvaluator::new(AlertConfig::default());
        Metrics {
            clamp: f.section("clamp", MonotonicClamp::new()),
            totals: f.section("totals", MetricsSnapshot::default()),
            alerts: f.section("alerts", fallback),
        }
    }

    fn write(&self, o: &mut Out) {
        o.section("clamp", &self.clamp);
        o.section("totals", &self.totals);
        o.section("alerts", &self.alerts);
    }

    fn check(&self, c: &mut Check) {
        c.within(Seg::field("alerts"), |c| self.alerts.check(c));
    }
}

impl Section for AlertEvaluator {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["config", "window", "rules"], AS_WRITTEN);
        let config: AlertConfig = f.section("config", AlertConfig::default());
        let fresh = AlertEvaluator::new(config);
        let window = f.section("window", fresh.window.clone());
        if !window.same_shape(&fresh.window) {
            f.check().fail_at(
                Seg::field("window"),
                ConfigErrorCode::Inconsistent,
                "the window's buckets do not match alerts.window_ms",
            );
        }
        let last_seen = last_seen(f);
        let exhausted_since = f.bool("exhausted_since", false);
        let read: Vec<RuleState> = f.sections("rules");
        let in_order = read.len() == AlertRule::ALL.len()
            && read.iter().zip(AlertRule::ALL).all(|(s, r)| s.rule == r);
        if !in_order && f.has("rules", false) {
            f.check().fail_at(
                Seg::field("rules"),
                ConfigErrorCode::Inconsistent,
                "expected one state per alert rule, in the order retry_rate, exhausted_rate, circuit_open",
            );
        }
        let mut rules = fresh.rules;
        for (slot, state) in rules.iter_mut().zip(read).filter(|_| in_order) {
            *slot = state;
        }
        let (events, dropped_events) = f.queue("events", "dropped_events", EVENT_QUEUE_CAPACITY);
        AlertEvaluator {
            config,
            window,
            last_seen,
            exhausted_since,
            rules,
            events,
            dropped_events,
        }
    }

    fn write(&self, o: &mut Out) {
        o.section("config", &self.config);
        o.section("window", &self.window);
        let last_seen = match self.last_seen {
            Some((bucket, gauge)) => Value::List(vec![
                Value::Int(i128::from(bucket)),
                Value::Int(i128::from(gauge.value())),
            ]),
            None => Value::Null,
        };
        o.value("last_seen", last_seen);
        o.bool("exhausted_since", self.exhausted_since);
        o.sections("rules", &self.rules);
        o.sections("events", &self.events);
        o.uint("dropped_events", self.dropped_events);
    }

    fn check(&self, c: &mut Check) {
        c.within(Seg::field("config"), |c| self.config.check(c));
    }
}

/// `last_seen`: `[bucket, gauge]` (the window bucket and breaker gauge the
/// evaluator last judged at), or `null` before the first evaluation.
fn last_seen(f: &mut Fields<'_, '_>) -> Option<(u64, BreakerGauge)> {
    let numbers = f.opt_u64s("last_seen")?;
    let gauge = numbers
        .get(1)
        .and_then(|g| u8::try_from(*g).ok())
        .and_then(BreakerGauge::from_value);
    match (numbers.as_slice(), gauge) {
        ([bucket, _], Some(gauge)) => Some((*bucket, gauge)),
        _ => {
            f.check().fail_at(
                Seg::field("last_seen"),
                ConfigErrorCode::InvalidValue,
                "expected [bucket, gauge] with a gauge of 0, 1 or 2",
            );
            None
        }
    }
}

impl Section for Window {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let names = ["attempts", "retry_attempts", "finished", "exhausted"];
        f.require_all(&names, AS_WRITTEN);
        let empty = || BucketRing::new(1, 1);
        Window {
            attempts: f.section("attempts", empty()),
            retry_attempts: f.section("retry_attempts", empty()),
            finished: f.section("finished", empty()),
            exhausted: f.section("exhausted", empty()),
        }
    }

    fn write(&self, o: &mut Out) {
        o.section("attempts", &self.attempts);
        o.section("retry_attempts", &self.retry_attempts);
        o.section("finished", &self.finished);
        o.section("exhausted", &self.exhausted);
    }

    fn check(&self, _: &mut Check) {}
}

impl Section for RuleState {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let names = ["rule", "level", "numerator", "denominator", "at"];
        f.require_all(&names, AS_WRITTEN);
        RuleState {
            rule: f.code("rule", AlertRule::RetryRate, &AlertRule::ALL, |r| r.code()),
            level: f.code("level", AlertLevel::Ok, &AlertLevel::ALL, |l| l.code()),
            numerator: f.u64("numerator", 0),
            denominator: f.u64("denominator", 0),
            at: f.instant("at", Instant::ZERO),
        }
    }

    fn write(&self, o: &mut Out) {
        o.code("rule", self.rule.code());
        o.code("level", self.level.code());
        o.uint("numerator", self.numerator);
        o.uint("denominator", self.denominator);
        o.instant("at", self.at);
    }

    fn check(&self, _: &mut Check) {}
}
