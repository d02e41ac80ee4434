//! Benchmarks for stoic-core live in `benches/`; this crate holds no code.
