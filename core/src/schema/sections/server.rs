//! The server-side idempotency settings.

use crate::schema::{Check, Fields, Out, Section, Seg};
use crate::server_idempotency::ServerIdempotencyConfig;

/// 30 days: longer than any replay window a server keeps.
const MAX_MS: u64 = 30 * 86_400_000;

impl Section for ServerIdempotencyConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = ServerIdempotencyConfig::default();
        ServerIdempotencyConfig {
            require_key: f.bool("require_key", d.require_key),
            ttl_ms: f.duration("ttl", d.ttl_ms),
            in_flight_timeout_ms: f.duration("in_flight_timeout", d.in_flight_timeout_ms),
        }
    }

    fn write(&self, o: &mut Out) {
        o.bool("require_key", self.require_key);
        o.duration("ttl", self.ttl_ms);
        o.duration("in_flight_timeout", self.in_flight_timeout_ms);
    }

    fn check(&self, c: &mut Check) {
        for (stem, ms) in [
            ("ttl", self.ttl_ms),
            ("in_flight_timeout", self.in_flight_timeout_ms),
        ] {
            c.ms_from(Seg::duration(stem), ms, 1, MAX_MS, " (30 days)");
        }
    }
}
