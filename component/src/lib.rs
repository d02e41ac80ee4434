//! # stoic-component
//!
//! `stoic-core` as a WebAssembly component: the WIT world
//! `stoic:engine/engine` (`wit/stoic.wit`), for any component host
//! (wasmtime in Rust, Python, Go, .NET or C; jco in Node and browsers).
//!
//! Translation only, as in the other bindings: WIT values are converted
//! in, the core decides, typed values are converted out. Configs are the
//! core's JSON documents in its own spelling (`Dialect::RUST`), read and
//! checked by the core's one schema, so a config error names the field as
//! the Rust, JS and Python bindings do.
//!
//! The world imports nothing: no clock (time is an argument), no
//! randomness (seeds and random bytes come from the host), no WASI. The
//! crate is built for `wasm32-unknown-unknown`, whose standard library
//! imports nothing either; `make component` checks the component's import
//! list is empty.
#![warn(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

/// The bindings wit-bindgen generates from `wit/stoic.wit`: unsafe by
/// nature (the canonical ABI's pointers), so this is the one module that
/// allows unsafe code.
#[allow(
    unsafe_code,
    unreachable_pub,
    missing_debug_implementations,
    clippy::all
)]
mod bindings {
    wit_bindgen::generate!({ path: "../wit", world: "engine" });

    // The canonical-ABI exports exist only in the wasm build: their names
    // (`stoic:engine/keys@0.1.0#canonical-json`) are not symbols a native
    // linker accepts, and the native build (the workspace's tests and
    // clippy) only checks that the bindings and the translation compile.
    #[cfg(target_arch = "wasm32")]
    use super::Engine;
    #[cfg(target_arch = "wasm32")]
    export!(Engine);
}

pub mod backoff;
mod convert;
mod hints;
mod host;
mod keys;
pub mod parts;
pub mod policy;
pub mod server;

/// The component's one export type: every interface is implemented on it.
#[derive(Debug)]
pub struct Engine;
