//! How many retries a ratio budget's window can hold, in integer
//! arithmetic: exact for any count, and cheap on the path every retry runs.

/// `floor((ratio_milli * requests) / 1000 + (floor_milli * window_ms) /
/// 10^6)` retries, exactly, in units of a millionth of a retry.
///
/// Every validated config and any realistic count keep both products
/// below 2^62, where 64-bit arithmetic is exact: that path runs on every
/// retry. Beyond it, u128 holds `u64::MAX * 10^9` easily; in wasm its
/// multiplications and division are library calls (`__multi3`,
/// `__udivti3`), a sixth of a retry decision when they ran every time.
pub(super) fn allowance(requests: u64, ratio_milli: u64, floor_milli: u64, window_ms: u64) -> u64 {
    const BELOW_2_31: u64 = 1 << 31;
    // `ratio_milli * 1000 < 2^31` and each factor below 2^31: each product
    // is below 2^62, so neither they nor their sum can wrap.
    if ratio_milli < (1 << 21)
        && requests < BELOW_2_31
        && floor_milli < BELOW_2_31
        && window_ms < BELOW_2_31
    {
        let micro = ratio_milli
            .wrapping_mul(1000)
            .wrapping_mul(requests)
            .wrapping_add(floor_milli.wrapping_mul(window_ms));
        return micro / 1_000_000;
    }
    let micro = u128::from(ratio_milli)
        .saturating_mul(1000)
        .saturating_mul(u128::from(requests))
        .saturating_add(u128::from(floor_milli).saturating_mul(u128::from(window_ms)));
    u64::try_from(micro / 1_000_000).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: the allowance in u128, always.
    fn wide_allowance(requests: u64, ratio_milli: u64, floor_milli: u64, window_ms: u64) -> u64 {
        let micro = u128::from(ratio_milli)
            .saturating_mul(1000)
            .saturating_mul(u128::from(requests))
            .saturating_add(u128::from(floor_milli).saturating_mul(u128::from(window_ms)));
        u64::try_from(micro / 1_000_000).unwrap_or(u64::MAX)
    }

    /// A value near 2^bits: below, at or above the 64-bit path's bounds.
    fn around(bits: u32) -> impl proptest::strategy::Strategy<Value = u64> {
        let edge = 1u64 << bits;
        proptest::prop_oneof![0..edge, (edge - 3)..(edge + 3), proptest::num::u64::ANY,]
    }

    proptest::proptest! {
        /// The 64-bit path gives the u128 answer wherever it is taken, and
        /// the wide path beyond it.
        #[test]
        fn allowance_is_exact(
            requests in around(31),
            ratio_milli in around(21),
            floor_milli in around(31),
            window_ms in around(31),
        ) {
            proptest::prop_assert_eq!(
                allowance(requests, ratio_milli, floor_milli, window_ms),
                wide_allowance(requests, ratio_milli, floor_milli, window_ms)
            );
        }
    }
}
