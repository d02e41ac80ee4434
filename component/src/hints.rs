//! `hints`: what a server asks for in its response headers.

use stoic_core::hints::{self, HintSource, ServerHint};
use stoic_core::httpdate::parse_http_date_at;
use stoic_core::WallClock;

use crate::bindings::exports::stoic::engine::hints::{
    Guest, HintBounded, HintDelay, HintRefusal, ServerHint as Hint,
};
use crate::Engine;

impl Guest for Engine {
    fn parse_retry_after(value: String, now_ms: i64) -> Option<u64> {
        // A wall clock before 1970 is no clock a server's date can be
        // compared with: read it as the epoch.
        hints::parse_retry_after(&value, u64::try_from(now_ms).unwrap_or(0))
    }

    fn parse_http_date(value: String, now_unix_s: Option<u64>) -> Option<u64> {
        parse_http_date_at(&value, now_unix_s)
    }

    fn parse_server_hint(
        headers: Vec<(String, String)>,
        wall_unix_ms: Option<u64>,
    ) -> Option<Hint> {
        let pairs = headers.iter().map(|(n, v)| (n.as_str(), v.as_str()));
        hints::server_hint(pairs, wall_unix_ms.map(WallClock::from_unix_millis)).map(hint_out)
    }

    fn hint_delay_with_backoff(hint: Hint, backoff_ms: u64) -> Option<u64> {
        hint_in(&hint)?.delay_with_backoff(backoff_ms)
    }
}

fn hint_out(hint: ServerHint) -> Hint {
    match hint {
        ServerHint::Delay { delay_ms, source } => Hint::Delay(HintDelay {
            delay_ms,
            source: source.code().to_owned(),
        }),
        ServerHint::Bounded { hint_ms, source } => Hint::Bounded(HintBounded {
            hint_ms,
            source: source.code().to_owned(),
        }),
        ServerHint::DoNotRetry { source } => Hint::DoNotRetry(HintRefusal {
            source: source.code().to_owned(),
        }),
    }
}

/// A hint the host hands back; one with a source the core never wrote
/// carries no usable delay.
fn hint_in(hint: &Hint) -> Option<ServerHint> {
    Some(match hint {
        Hint::Delay(d) => ServerHint::Delay {
            delay_ms: d.delay_ms,
            source: HintSource::from_code(&d.source)?,
        },
        Hint::Bounded(b) => ServerHint::Bounded {
            hint_ms: b.hint_ms,
            source: HintSource::from_code(&b.source)?,
        },
        Hint::DoNotRetry(r) => ServerHint::DoNotRetry {
            source: HintSource::from_code(&r.source)?,
        },
    })
}
