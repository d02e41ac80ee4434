//! Property tests of the policy state machine: random operation sequences
//! across scopes never panic, keep the invariants checked in
//! `support/ops.rs`, and give the same decisions for the same inputs.

mod support;

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_operations_keep_the_invariants(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        let first = support::ops::run(&data);
        let second = support::ops::run(&data);
        prop_assert_eq!(first, second);
    }
}
