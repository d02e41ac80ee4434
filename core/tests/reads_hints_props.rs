//! `Policy::reads_hints`: a host that skips a response's headers when the
//! policy says it does not read them must get the same decision as one that
//! passes them, whatever the status, the classification, the call and the
//! hint; and the statuses a policy retries must be read.

use proptest::prelude::*;
use stoic_core::classify::Class;
use stoic_core::hints::{HintSource, ServerHint};
use stoic_core::{CallSpec, Config, Decision, Instant, Outcome, Policy};

fn hint() -> impl Strategy<Value = ServerHint> {
    let source = proptest::sample::select(HintSource::ALL.to_vec());
    prop_oneof![
        (0u64..600_000, source.clone())
            .prop_map(|(delay_ms, source)| ServerHint::Delay { delay_ms, source }),
        (0u64..600_000, source.clone())
            .prop_map(|(hint_ms, source)| ServerHint::Bounded { hint_ms, source }),
        source.prop_map(|source| ServerHint::DoNotRetry { source }),
    ]
}

fn policy(overrides: &[(u16, Class)], respect: bool) -> Policy {
    let mut config = Config {
        seed: Some(7),
        ..Config::default()
    };
    for (status, class) in overrides {
        config.classify.status.insert(*status, *class);
    }
    config.hints.respect = respect;
    match Policy::new(config) {
        Ok(policy) => policy,
        Err(error) => panic!("a valid config was refused: {error}"),
    }
}

/// The decision on one attempt that ended with `status` (and `hint`, if any).
fn decide(
    policy: &mut Policy,
    status: u16,
    idempotent: bool,
    hint: Option<ServerHint>,
) -> Decision {
    let at = Instant::from_millis(1_000);
    let mut call = policy.start(at, CallSpec::new("GET /orders").idempotent(idempotent));
    let _ = policy.before_attempt(at, &mut call);
    policy.on_outcome(at, &mut call, Outcome::status(status).with_hint(hint))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn headers_a_policy_does_not_read_change_no_decision(
        any_status in prop_oneof![100u16..=599, 100u16..=999],
        overrides in proptest::collection::vec(
            (100u16..=599, proptest::sample::select(Class::ALL.to_vec())),
            0..6,
        ),
        // Half the cases ask about a status the table overrides.
        pick in any::<proptest::sample::Index>(),
        overridden in any::<bool>(),
        respect in any::<bool>(),
        idempotent in any::<bool>(),
        hint in hint(),
    ) {
        let status = match overrides.get(pick.index(overrides.len().max(1))) {
            Some((status, _)) if overridden => *status,
            _ => any_status,
        };
        let mut with = policy(&overrides, respect);
        let mut without = policy(&overrides, respect);
        let reads = with.reads_hints(status);
        let hinted = decide(&mut with, status, idempotent, Some(hint));
        let bare = decide(&mut without, status, idempotent, None);
        if !reads {
            prop_assert_eq!(hinted, bare);
        }
    }
}

#[test]
fn the_statuses_a_policy_retries_are_the_ones_it_reads() {
    let defaults = policy(&[], true);
    for status in [408, 425, 429, 500, 502, 503, 504] {
        assert!(defaults.reads_hints(status), "{status}");
    }
    for status in [200, 201, 204, 301, 304, 400, 401, 404, 409, 422, 501] {
        assert!(!defaults.reads_hints(status), "{status}");
    }
    // The policy's own table decides, both ways.
    let table = policy(
        &[
            (409, Class::Transient),
            (503, Class::Deterministic),
            (200, Class::Ambiguous),
        ],
        true,
    );
    assert!(table.reads_hints(409));
    assert!(table.reads_hints(200));
    assert!(!table.reads_hints(503));
    // Hints not respected: no response's headers matter.
    let deaf = policy(&[], false);
    assert!(!deaf.reads_hints(503));
    assert!(!deaf.reads_hints(429));
}
