//! Random operation sequences across scopes: no panic, invariants hold, and
//! the same bytes give the same decisions. The interpreter is the one the
//! proptest in `core/tests/policy_props.rs` uses.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/ops.rs"]
mod ops;

fuzz_target!(|data: &[u8]| {
    let first = ops::run(data);
    assert_eq!(first, ops::run(data));
});
