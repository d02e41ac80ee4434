//! Every header parser must be total: any bytes in, a value or `None` out.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stoic_core::hints::{parse_retry_after, server_hint};
use stoic_core::httpdate::parse_http_date;
use stoic_core::WallClock;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let now = data.len() as u64 * 1_000_003;
    let _ = parse_retry_after(text, now);
    let _ = parse_http_date(text);
    // Split the input into header lines "name: value" to exercise precedence.
    let headers: Vec<(&str, &str)> =
        text.lines().filter_map(|l| l.split_once(':')).map(|(n, v)| (n, v)).collect();
    if let Some(hint) = server_hint(headers.iter().copied(), Some(WallClock::from_unix_millis(now))) {
        let _ = hint.delay_with_backoff(now % 100_000);
    }
});
