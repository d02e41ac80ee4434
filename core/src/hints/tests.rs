//! Unit tests of `hints`.

use super::*;
use proptest::prelude::*;

const NOW_MS: u64 = 1_559_559_600_000; // 2019-06-03T11:00:00Z

fn hint(headers: &[(&str, &str)], wall_now_ms: Option<u64>) -> Option<ServerHint> {
    server_hint(
        headers.iter().copied(),
        wall_now_ms.map(WallClock::from_unix_millis),
    )
}

fn delay(delay_ms: u64, source: HintSource) -> Option<ServerHint> {
    Some(ServerHint::Delay { delay_ms, source })
}

#[test]
fn retry_after_seconds_and_dates() {
    assert_eq!(parse_retry_after("120", NOW_MS), Some(120_000));
    assert_eq!(parse_retry_after(" \t42 ", NOW_MS), Some(42_000));
    assert_eq!(parse_retry_after("0.9", NOW_MS), Some(900));
    assert_eq!(parse_retry_after("0.0009", NOW_MS), Some(1));
    assert_eq!(parse_retry_after("1.0000", NOW_MS), Some(1000));
    assert_eq!(
        parse_retry_after("99999999999999999999999", NOW_MS),
        Some(u64::MAX)
    );
    assert_eq!(
        parse_retry_after("18446744073709551.615", NOW_MS),
        Some(u64::MAX)
    );
    assert_eq!(
        parse_retry_after("18446744073709551.614", NOW_MS),
        Some(u64::MAX - 1)
    );
    assert_eq!(
        parse_retry_after("Mon, 03 Jun 2019 11:30:12 GMT", NOW_MS),
        Some(1_812_000)
    );
    assert_eq!(
        parse_retry_after("Mon, 03 Jun 2019 10:00:00 GMT", NOW_MS),
        Some(0)
    );
    assert_eq!(
        parse_retry_after("Mon, 03 Jun 2019 11:00:01 GMT", NOW_MS + 1),
        Some(999)
    );
    for bad in [
        "", "-1", "+1", "1e3", ".5", "5.", "1 0", "²", "١", "0x10", "inf", "1,5",
    ] {
        assert_eq!(parse_retry_after(bad, NOW_MS), None, "{bad:?}");
    }
}

#[test]
fn codes_round_trip_and_match_the_wire_form() {
    for source in HintSource::ALL {
        assert_eq!(HintSource::from_code(source.code()), Some(source));
        #[cfg(feature = "serde")]
        assert_eq!(
            serde_json::to_string(&source).unwrap(),
            format!("\"{}\"", source.code())
        );
        if !source.header_name().contains('*') {
            assert_eq!(source.header_name().replace('-', "_"), source.code());
        }
    }
    assert_eq!(HintSource::from_code("retry-after"), None);
    let h = ServerHint::Bounded {
        hint_ms: 7,
        source: HintSource::XAmzRetryAfter,
    };
    let json = crate::schema::json::value(&h);
    assert_eq!(
        json,
        serde_json::json!({"kind": "bounded", "hint_ms": 7, "source": "x_amz_retry_after"})
    );
    let back: ServerHint = crate::schema::json::read(&json.to_string()).unwrap();
    assert_eq!(back, h);
}

#[test]
fn bounded_follows_botocore() {
    let h = |hint_ms| ServerHint::Bounded {
        hint_ms,
        source: HintSource::XAmzRetryAfter,
    };
    assert_eq!(h(1500).delay_with_backoff(50), Some(1500));
    assert_eq!(h(0).delay_with_backoff(50), Some(50));
    assert_eq!(h(10_000).delay_with_backoff(50), Some(5050));
    assert_eq!(h(u64::MAX).delay_with_backoff(u64::MAX), Some(u64::MAX));
    let d = ServerHint::Delay {
        delay_ms: 10,
        source: HintSource::RetryAfter,
    };
    assert_eq!(d.delay_with_backoff(50_000), Some(10));
    let no = ServerHint::DoNotRetry {
        source: HintSource::GrpcRetryPushbackMs,
    };
    assert_eq!(no.delay_with_backoff(50), None);
    assert_eq!(no.source(), HintSource::GrpcRetryPushbackMs);
}

#[test]
fn precedence() {
    let all = [
        ("X-RateLimit-Reset", "9"),
        ("RateLimit-Reset", "8"),
        ("RateLimit", "\"default\";r=0;t=7"),
        ("grpc-retry-pushback-ms", "6"),
        ("x-amz-retry-after", "5"),
        ("x-ms-retry-after-ms", "4"),
        ("retry-after-ms", "3"),
        ("Retry-After", "2"),
    ];
    let expected = [
        delay(2000, HintSource::RetryAfter),
        delay(3, HintSource::RetryAfterMs),
        delay(4, HintSource::XMsRetryAfterMs),
        Some(ServerHint::Bounded {
            hint_ms: 5,
            source: HintSource::XAmzRetryAfter,
        }),
        delay(6, HintSource::GrpcRetryPushbackMs),
        delay(7000, HintSource::RateLimit),
        delay(8000, HintSource::RateLimitReset),
        delay(9000, HintSource::XRateLimitReset),
    ];
    for (n, want) in expected.iter().enumerate() {
        // Drop the n highest-ranked headers: the next one must win.
        assert_eq!(hint(&all[..all.len() - n], None), *want, "n = {n}");
    }
    let mut refused = all.to_vec();
    refused.push(("grpc-retry-pushback-ms", "-1"));
    refused.rotate_right(1);
    assert_eq!(
        hint(&refused, None),
        Some(ServerHint::DoNotRetry {
            source: HintSource::GrpcRetryPushbackMs
        })
    );
    assert_eq!(hint(&[], None), None);
}

#[test]
fn names_are_case_insensitive_and_garbage_is_ignored() {
    let h = [
        ("rEtRy-AfTeR", "soon"),
        ("RETRY-AFTER", " 3 "),
        ("retry-after", "4"),
    ];
    assert_eq!(hint(&h, None), delay(3000, HintSource::RetryAfter));
    let h = [
        ("Retry-After", "-5"),
        ("retry-after-ms", "oops"),
        ("x-ms-retry-after-ms", "12"),
    ];
    assert_eq!(hint(&h, None), delay(12, HintSource::XMsRetryAfterMs));
    assert_eq!(
        hint(&[("Retry-Afterx", "3"), ("Content-Type", "3")], None),
        None
    );
}

#[test]
fn dates_use_the_date_header_then_wall_now() {
    let at = "Mon, 03 Jun 2019 11:00:30 GMT";
    // Client clock five minutes fast: without Date the hint is already past.
    let skewed = Some(NOW_MS + 300_000);
    assert_eq!(
        hint(&[("Retry-After", at)], skewed),
        delay(0, HintSource::RetryAfter)
    );
    let with_date = [
        ("Date", "Mon, 03 Jun 2019 11:00:00 GMT"),
        ("Retry-After", at),
    ];
    assert_eq!(
        hint(&with_date, skewed),
        delay(30_000, HintSource::RetryAfter)
    );
    assert_eq!(
        hint(&with_date, None),
        delay(30_000, HintSource::RetryAfter)
    );
    // Date after the hint, or an invalid Date falls back to wall_now.
    let late_date = [
        ("Retry-After", at),
        ("date", "nonsense"),
        ("DATE", "Mon, 03 Jun 2019 11:00:10 GMT"),
    ];
    assert_eq!(
        hint(&late_date, None),
        delay(20_000, HintSource::RetryAfter)
    );
    let bad_date = [("Date", "yesterday"), ("Retry-After", at)];
    assert_eq!(
        hint(&bad_date, Some(NOW_MS)),
        delay(30_000, HintSource::RetryAfter)
    );
    // With no clock at all, a date is unusable: a later delay-seconds wins,
    // while with a clock the earlier date wins.
    let both = [("Retry-After", at), ("Retry-After", "7")];
    assert_eq!(hint(&both, None), delay(7000, HintSource::RetryAfter));
    assert_eq!(
        hint(&both, Some(NOW_MS)),
        delay(30_000, HintSource::RetryAfter)
    );
    assert_eq!(hint(&[("Retry-After", at)], None), None);
}

#[test]
fn reset_headers() {
    let epoch = [
        ("X-RateLimit-Reset", "1559559660"),
        ("X-RateLimit-Remaining", "0"),
    ];
    assert_eq!(
        hint(&epoch, Some(NOW_MS)),
        delay(60_000, HintSource::XRateLimitReset)
    );
    assert_eq!(hint(&epoch, None), None);
    let with_date = [
        ("X-RateLimit-Reset", "1559559660.5"),
        ("Date", "Mon, 03 Jun 2019 11:00:00 GMT"),
    ];
    assert_eq!(
        hint(&with_date, None),
        delay(60_500, HintSource::XRateLimitReset)
    );
    assert_eq!(
        hint(&[("x-ratelimit-reset", "999999999")], None),
        delay(999_999_999_000, HintSource::XRateLimitReset)
    );
    let spare = [
        ("X-RateLimit-Reset", "30"),
        ("X-RateLimit-Remaining", "4999"),
    ];
    assert_eq!(hint(&spare, None), None);
    let spare = [("RateLimit-Reset", "30"), ("RateLimit-Remaining", "1")];
    assert_eq!(hint(&spare, None), None);
    let spent = [("RateLimit-Remaining", "0"), ("RateLimit-Reset", "30")];
    assert_eq!(
        hint(&spent, None),
        delay(30_000, HintSource::RateLimitReset)
    );
}

#[test]
fn ratelimit_field() {
    let p = parse_ratelimit;
    assert_eq!(p("\"default\";r=0;t=30"), Some(30_000));
    assert_eq!(p("default;r=0;t=30"), Some(30_000));
    assert_eq!(p("\"default\";r=5;t=30"), None);
    assert_eq!(
        p("\"a,;b\";r=0;t=3, \"day\";r=0;t=600;pk=:cHsdsRa894==:"),
        Some(600_000)
    );
    assert_eq!(p("\"hour\";r=0;t=60, \"day\";r=100;t=600"), Some(60_000));
    assert_eq!(p("\"default\";r=0"), None);
    assert_eq!(p("limit=10, remaining=0, reset=30"), Some(30_000));
    assert_eq!(p("limit=10, remaining=3, reset=30"), None);
    assert_eq!(p("garbage"), None);
    assert_eq!(p(""), None);
    let lines = [
        ("RateLimit", "\"a\";r=0;t=10"),
        ("RateLimit", "\"b\";r=0;t=20"),
    ];
    assert_eq!(hint(&lines, None), delay(20_000, HintSource::RateLimit));
}

#[test]
fn grpc_pushback() {
    let g = |v| hint(&[("grpc-retry-pushback-ms", v)], None);
    let refused = Some(ServerHint::DoNotRetry {
        source: HintSource::GrpcRetryPushbackMs,
    });
    assert_eq!(g("250"), delay(250, HintSource::GrpcRetryPushbackMs));
    assert_eq!(
        g(" 2147483647 "),
        delay(2_147_483_647, HintSource::GrpcRetryPushbackMs)
    );
    assert_eq!(g("+5"), delay(5, HintSource::GrpcRetryPushbackMs));
    assert_eq!(g("-0"), delay(0, HintSource::GrpcRetryPushbackMs));
    for bad in ["-1", "abc", "", "2147483648", "1.5"] {
        assert_eq!(g(bad), refused, "{bad:?}");
    }
    // The first pushback decides, even if a later one is valid.
    let two = [
        ("grpc-retry-pushback-ms", "x"),
        ("grpc-retry-pushback-ms", "5"),
    ];
    assert_eq!(hint(&two, None), refused);
}

proptest! {
    #[test]
    fn parsers_are_total(s in any::<String>(), now in any::<u64>()) {
        let _ = parse_retry_after(&s, now);
        let _ = parse_ratelimit(&s);
        let _ = parse_pushback(&s);
    }

    #[test]
    fn server_hint_is_total(
        headers in proptest::collection::vec(
            (
                prop_oneof![
                    Just("Retry-After".to_string()),
                    Just("x-ratelimit-reset".to_string()),
                    Just("RateLimit".to_string()),
                    Just("date".to_string()),
                    Just("grpc-retry-pushback-ms".to_string()),
                    any::<String>(),
                ],
                prop_oneof![
                    "[0-9.;=, r t\"-]{0,20}",
                    Just("Mon, 03 Jun 2019 11:30:12 GMT".to_string()),
                    any::<String>(),
                ],
            ),
            0..8,
        ),
        wall_now in any::<Option<u64>>(),
    ) {
        let pairs: Vec<(&str, &str)> =
            headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let _ = hint(&pairs, wall_now);
    }

    #[test]
    fn bounded_stays_within_five_seconds(hint_ms in any::<u64>(), t in any::<u64>()) {
        let h = ServerHint::Bounded { hint_ms, source: HintSource::XAmzRetryAfter };
        let d = h.delay_with_backoff(t).unwrap();
        prop_assert!(d >= t && d <= t.saturating_add(AMZ_RETRY_AFTER_MAX_EXTRA_MS));
    }

    #[test]
    fn seconds_scale_exactly(n in 0u64..=u64::MAX / 1000) {
        prop_assert_eq!(parse_retry_after(&n.to_string(), 0), Some(n * 1000));
    }
}
