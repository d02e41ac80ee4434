//! # stoic-wasm
//!
//! The WebAssembly face of `stoic-core` for JavaScript hosts (Node, browsers,
//! edge workers). Translation only: values are converted in, the core is
//! called, values are converted out. No decision, default or validation
//! lives here; the npm package's TypeScript runtime wraps these classes.
//!
//! Conventions at the boundary:
//! - Hot-path methods take and return numbers (milliseconds as `f64`,
//!   handles and codes as integers); objects cross only at construction and
//!   when the host asks for a full decision, event or status.
//! - What the glue's signatures do not say (the numbers hot-path methods
//!   answer with, the text and plan areas, the packed strings) is declared
//!   once in [`abi`], from which `npm/src/abi.generated.ts` is generated.
//! - Objects are written and read by the core's one schema in the JS
//!   dialect (camelCase keys, milliseconds); config keys may be given in
//!   either case, and errors name the field as the caller spelled it.
//!   Snapshots are the core's JSON text, the same in every language.
//! - Errors are real `Error` objects with `name`, `code` and `field`. No
//!   panic can cross the boundary: the release profile aborts, and the
//!   crate's lints forbid the constructs that panic.
//!
//! Two builds: the full module (every feature; the Node, workerd, inline and
//! `stoic/full` entries) and the client module (`--no-default-features`;
//! the browser entry), which leaves out what a web client does not need so
//! that it downloads half as much: the standalone parts and log/metric
//! helpers (`tools`), server-side
//! idempotency (`server`), policy snapshots (`snapshot`), the fleet
//! exchange (`fleet`), measuring (`measure`), and, as features of the core,
//! the failure-rate and slow-call breaker rules with their windows
//! (`rate_breaker`), hedged calls (`hedging`), the AWS token bucket and the gRPC throttle
//! (`token_buckets`), alerts (`alerts`) and the config reader's "did you
//! mean" (`suggest`). A config asking the client module for one of those is
//! refused by the core with `not_in_build`, naming `stoic/full`. The
//! decision path is the same code in both.
#![warn(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

/// The allocator: talc rather than Rust's default for WebAssembly
/// (dlmalloc), whose code was 8 KB of the browser's module. Measured here:
/// the browser module 2.8 KB smaller gzipped, and the engine's hot path in
/// Node as fast (success and retry decision within 3 % either way, which is
/// this machine's noise). talc keeps a little more memory per allocation,
/// which a module of a few hundred kilobytes of state does not feel.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

pub mod abi;
mod canonical;
#[cfg(feature = "tools")]
mod components;
#[cfg(any(feature = "tools", feature = "server"))]
mod data;
mod errors;
mod helpers;
mod host;
mod object;
mod policy;
mod random;
#[cfg(feature = "tools")]
mod records;
mod run;
#[cfg(feature = "server")]
mod server;
mod text;
mod units;
mod value;

pub use abi::{INVALID_CODE, MISUSE, UNKNOWN_CALL};
pub use canonical::{canonical_json_exact_text, canonical_json_text, idempotency_key_text};
#[cfg(feature = "tools")]
pub use components::{CoreBackoff, CoreBreaker, CoreBudget, CoreMetrics};
pub use errors::register_error_classes;
pub use helpers::{
    classes, is_idempotent_method, key_header_value, network_kinds, parse_http_date_value,
    parse_key_header_value, parse_retry_after_value, random_key_from, server_hint_of, wasm_memory,
};
pub use host::{
    host_policy, http_plan_of, is_event_stream_of, is_failure_status_of, validates_status,
    wants_excerpt_of,
};
#[cfg(feature = "fleet")]
pub use policy::fleet::fleet_redis_script;
#[cfg(feature = "hedging")]
pub use policy::hedging::hedging_config;
pub use policy::{boundary_error, CorePolicy};
#[cfg(feature = "tools")]
pub use records::{log_record, merge_metrics, metric_catalogue};
pub use run::{
    default_run_max_retries, nested_retry_header, tool_reason, tool_retry_later, CoreRunQuota,
};
#[cfg(feature = "server")]
pub use server::{payload_fingerprint, CoreServerIdempotency};
