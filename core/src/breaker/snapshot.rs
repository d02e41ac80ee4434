//! A breaker in a snapshot: its config, state, window, clock, queued
//! transitions and open permits, read back with the checks that make a
//! restored breaker one the core could have built (the window matches the
//! trip rule, queues and counts bounded).

use super::window::{Bucket, CallWindow, Mark};
use super::{Breaker, BreakerConfig, BreakerState, MAX_QUEUED_TRANSITIONS};
use crate::error::ConfigErrorCode;
use crate::schema::sections::{WindowKind, WINDOW_KINDS};
use crate::schema::{Check, Fields, Out, Section, Seg};
use crate::serials::Serials;
use crate::state::AS_WRITTEN;
use crate::time::MonotonicClamp;

impl Section for Breaker {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["config", "state", "generation", "clock"], AS_WRITTEN);
        let config: BreakerConfig = f.section("config", BreakerConfig::default());
        let state = f.section(
            "state",
            BreakerState::Closed {
                consecutive_failures: 0,
            },
        );
        let generation = f.u64("generation", 0);
        let window = f.opt_section::<CallWindow>("window", None);
        let window = match (config.trip.window(), window) {
            (None, None) => None,
            (Some(cfg), Some(mut w)) if w.matches(cfg) => {
                w.normalize(cfg);
                Some(w)
            }
            (cfg, _) => {
                f.check().fail_at(
                    Seg::field("window"),
                    ConfigErrorCode::Inconsistent,
                    "the snapshot's window does not match breaker.trip",
                );
                cfg.map(CallWindow::new)
            }
        };
        let clock = f.section("clock", MonotonicClamp::new());
        let (transitions, transitions_dropped) =
            f.queue("transitions", "transitions_dropped", MAX_QUEUED_TRANSITIONS);
        Breaker {
            config,
            state,
            generation,
            window,
            clock,
            transitions,
            transitions_dropped,
            permits: f.section("permits", Serials::default()),
            // Process-local: a restored breaker waits for its fleet's view.
            probe_lease: None,
            probe_wanted: false,
        }
    }

    fn write(&self, o: &mut Out) {
        o.section("config", &self.config);
        o.section("state", &self.state);
        o.uint("generation", self.generation);
        o.opt_section("window", self.window.as_ref());
        o.section("clock", &self.clock);
        o.sections("transitions", &self.transitions);
        o.uint("transitions_dropped", self.transitions_dropped);
        o.section("permits", &self.permits);
    }

    fn check(&self, c: &mut Check) {
        c.within(Seg::field("config"), |c| self.config.check(c));
    }
}

/// A count window keeps its outcomes in order (`["ok", "err", "slow"]`); a
/// time window its buckets by absolute index.
impl Section for CallWindow {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require("kind", false, AS_WRITTEN);
        match f.code("kind", WindowKind::Count, &WINDOW_KINDS, |k| k.code()) {
            WindowKind::Time => CallWindow::Time {
                buckets: f.sections("buckets").into(),
            },
            WindowKind::Count => CallWindow::Count {
                marks: f.codes("marks", &Mark::ALL, |m| m.code()).into(),
                // Recounted from the marks by `normalize`.
                counts: super::WindowCounts::default(),
            },
        }
    }

    fn write(&self, o: &mut Out) {
        match self {
            CallWindow::Count { marks, .. } => {
                o.code("kind", WindowKind::Count.code());
                let marks = marks
                    .iter()
                    .map(|m| crate::schema::Value::Text(m.code().to_owned()))
                    .collect();
                o.list("marks", marks);
            }
            CallWindow::Time { buckets } => {
                o.code("kind", WindowKind::Time.code());
                o.sections("buckets", buckets);
            }
        }
    }

    fn check(&self, _: &mut Check) {}
}

impl Section for Bucket {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["index", "counts"], AS_WRITTEN);
        Bucket {
            index: f.u64("index", 0),
            counts: f.section("counts", super::WindowCounts::default()),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uint("index", self.index);
        o.section("counts", &self.counts);
    }

    fn check(&self, _: &mut Check) {}
}
