//! SHA-256 (FIPS 180-4), for argument hashes and payload fingerprints.
//!
//! Why not the `sha2` crate: it unrolls the 64 rounds and links its block
//! buffering and digest traits, about 5 KB of WebAssembly (4 % of the
//! browser's module) to hash a few hundred bytes per key. The rounds here
//! are one loop. Hashing is never on a call's hot path: a key is made once
//! per logical operation. The tests check it against the crate's digests
//! and the FIPS examples.

/// The first 32 bits of the fractional parts of the cube roots of the
/// first 64 primes.
const ROUND_CONSTANTS: [u32; 64] = [
    0x428a_2f98,
    0x7137_4491,
    0xb5c0_fbcf,
    0xe9b5_dba5,
    0x3956_c25b,
    0x59f1_11f1,
    0x923f_82a4,
    0xab1c_5ed5,
    0xd807_aa98,
    0x1283_5b01,
    0x2431_85be,
    0x550c_7dc3,
    0x72be_5d74,
    0x80de_b1fe,
    0x9bdc_06a7,
    0xc19b_f174,
    0xe49b_69c1,
    0xefbe_4786,
    0x0fc1_9dc6,
    0x240c_a1cc,
    0x2de9_2c6f,
    0x4a74_84aa,
    0x5cb0_a9dc,
    0x76f9_88da,
    0x983e_5152,
    0xa831_c66d,
    0xb003_27c8,
    0xbf59_7fc7,
    0xc6e0_0bf3,
    0xd5a7_9147,
    0x06ca_6351,
    0x1429_2967,
    0x27b7_0a85,
    0x2e1b_2138,
    0x4d2c_6dfc,
    0x5338_0d13,
    0x650a_7354,
    0x766a_0abb,
    0x81c2_c92e,
    0x9272_2c85,
    0xa2bf_e8a1,
    0xa81a_664b,
    0xc24b_8b70,
    0xc76c_51a3,
    0xd192_e819,
    0xd699_0624,
    0xf40e_3585,
    0x106a_a070,
    0x19a4_c116,
    0x1e37_6c08,
    0x2748_774c,
    0x34b0_bcb5,
    0x391c_0cb3,
    0x4ed8_aa4a,
    0x5b9c_ca4f,
    0x682e_6ff3,
    0x748f_82ee,
    0x78a5_636f,
    0x84c8_7814,
    0x8cc7_0208,
    0x90be_fffa,
    0xa450_6ceb,
    0xbef9_a3f7,
    0xc671_78f2,
];

/// The first 32 bits of the fractional parts of the square roots of the
/// first 8 primes.
const INITIAL_STATE: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// The 32-byte SHA-256 digest of `bytes`.
pub(crate) fn sha256(bytes: &[u8]) -> [u8; 32] {
    let mut state = INITIAL_STATE;
    let mut blocks = bytes.chunks_exact(64);
    for block in &mut blocks {
        compress(&mut state, block);
    }
    // The padding: a 1 bit, zeros, and the length in bits as 64 bits
    // big-endian, filling one block or, when the rest leaves no room for
    // the length, two.
    let rest = blocks.remainder();
    let mut tail = [0u8; 128];
    for (slot, byte) in tail.iter_mut().zip(rest) {
        *slot = *byte;
    }
    if let Some(marker) = tail.get_mut(rest.len()) {
        *marker = 0x80;
    }
    let end = if rest.len() < 56 { 64 } else { 128 };
    let bits = (bytes.len() as u64).wrapping_mul(8);
    if let Some(length) = tail.get_mut(end - 8..end) {
        length.copy_from_slice(&bits.to_be_bytes());
    }
    for block in tail.get(..end).unwrap_or(&[]).chunks_exact(64) {
        compress(&mut state, block);
    }
    let mut digest = [0u8; 32];
    for (out, word) in digest.chunks_exact_mut(4).zip(state) {
        out.copy_from_slice(&word.to_be_bytes());
    }
    digest
}

/// One 64-byte block into the state.
fn compress(state: &mut [u32; 8], block: &[u8]) {
    let mut schedule = [0u32; 64];
    for (word, bytes) in schedule.iter_mut().zip(block.chunks_exact(4)) {
        *word = bytes.try_into().map_or(0, u32::from_be_bytes);
    }
    for t in 16..64 {
        let at = |back: usize| schedule.get(t - back).copied().unwrap_or(0);
        let (w15, w2) = (at(15), at(2));
        let s0 = w15.rotate_right(7) ^ w15.rotate_right(18) ^ (w15 >> 3);
        let s1 = w2.rotate_right(17) ^ w2.rotate_right(19) ^ (w2 >> 10);
        let word = at(16).wrapping_add(s0).wrapping_add(at(7)).wrapping_add(s1);
        if let Some(slot) = schedule.get_mut(t) {
            *slot = word;
        }
    }
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    for (k, w) in ROUND_CONSTANTS.iter().zip(schedule) {
        let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
        let choice = (e & f) ^ (!e & g);
        let t1 = h
            .wrapping_add(s1)
            .wrapping_add(choice)
            .wrapping_add(*k)
            .wrapping_add(w);
        let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
        let majority = (a & b) ^ (a & c) ^ (b & c);
        let t2 = s0.wrapping_add(majority);
        h = g;
        g = f;
        f = e;
        e = d.wrapping_add(t1);
        d = c;
        c = b;
        b = a;
        a = t1.wrapping_add(t2);
    }
    for (word, add) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *word = word.wrapping_add(add);
    }
}

#[cfg(test)]
mod tests {
    use super::sha256;
    use sha2::{Digest, Sha256};

    #[test]
    fn agrees_with_the_crate_at_every_padding_boundary() {
        for length in 0..300 {
            let bytes: Vec<u8> = (0..length).map(|i| (i * 7 + 3) as u8).collect();
            assert_eq!(
                sha256(&bytes).as_slice(),
                Sha256::digest(&bytes).as_slice(),
                "{length}"
            );
        }
    }

    #[test]
    fn million_a() {
        // FIPS 180-2 appendix B.3.
        let digest = sha256(&vec![b'a'; 1_000_000]);
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_the_crate(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2000)) {
            let expected: [u8; 32] = Sha256::digest(&bytes).into();
            proptest::prop_assert_eq!(sha256(&bytes), expected);
        }
    }
}
