//! Spreads independent sweep points over the machine's cores.
//!
//! Every point is a pure function of its own seed, so the order in which
//! threads finish never changes a result: the output is put back in input
//! order. Plain scoped threads and an atomic cursor are enough for a few
//! hundred points; no thread-pool crate is needed.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `f` applied to every item on up to `threads` threads, results in item
/// order. `f` gets a per-thread state made by `init`, so simulators and their
/// buffers are reused across the points a thread computes. `tick` is called
/// after each point (for a progress bar).
pub fn map<I, S, R>(
    items: &[I],
    threads: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &I) -> R + Sync,
    tick: &(dyn Fn() + Sync),
) -> Vec<R>
where
    I: Sync,
    R: Send,
{
    let cursor = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, items.len().max(1)) {
            scope.spawn(|| {
                let mut state = init();
                loop {
                    let i = cursor.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = f(&mut state, item);
                    done.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((i, r));
                    tick();
                }
            });
        }
    });
    let mut done = done
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// The number of threads to use: what the OS reports, at least one.
#[must_use]
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_input_order_whatever_the_threads() {
        let items: Vec<u64> = (0..100).collect();
        for threads in [1, 2, 7] {
            let out = map(&items, threads, || 0_u64, |_, x| x * x, &|| {});
            let want: Vec<u64> = items.iter().map(|x| x * x).collect();
            assert_eq!(out, want);
        }
    }
}
