//! A monotonic clamp in a snapshot.

use crate::schema::{Check, Fields, Out, Section};
use crate::time::{Instant, MonotonicClamp};

/// In a snapshot: `{"latest": ms}`.
impl Section for MonotonicClamp {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require("latest", false, "(a clock as the core wrote it)");
        MonotonicClamp::resumed(f.instant("latest", Instant::ZERO))
    }

    fn write(&self, o: &mut Out) {
        o.instant("latest", self.latest());
    }

    fn check(&self, _: &mut Check) {}
}
