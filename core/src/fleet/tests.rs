//! The exchange against a simulated store: the merge rule as a property,
//! and lost replies counted once.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::{FleetHealth, FleetLink, FleetView, ScopeView, Tally};
use crate::time::Instant;

const BUCKET_MS: u64 = 100;
/// Long enough that nothing ages out during a test.
const WINDOW_MS: u64 = 1_000_000_000;

/// What Redis holds: the fleet's counts per (scope, bucket), and the last
/// sequence number applied per process.
#[derive(Default)]
struct Store {
    buckets: BTreeMap<(String, u64), Tally>,
    applied: BTreeMap<usize, u64>,
}

#[derive(Clone, Copy, Debug)]
enum Exchange {
    Ok,
    /// The store was unreachable: it never saw the delta.
    Unreachable,
    /// The store applied the delta, and the reply was lost.
    ReplyLost,
}

impl Store {
    /// One exchange of `process`, as the adapters' script runs it.
    fn exchange(
        &mut self,
        process: usize,
        link: &mut FleetLink,
        local_now: u64,
        store_now: u64,
        how: Exchange,
    ) {
        let delta = link.export(Instant::from_millis(local_now), store_now);
        if matches!(how, Exchange::Unreachable) {
            return;
        }
        let last = self.applied.entry(process).or_insert(0);
        if delta.seq > *last {
            *last = delta.seq;
            for scope in &delta.scopes {
                for (bucket, tally) in &scope.buckets {
                    let slot = self
                        .buckets
                        .entry((scope.scope.clone(), *bucket))
                        .or_default();
                    *slot = slot.plus(*tally);
                }
            }
        }
        let mut scopes: BTreeMap<String, Vec<(u64, Tally)>> = BTreeMap::new();
        for ((scope, bucket), tally) in &self.buckets {
            scopes
                .entry(scope.clone())
                .or_default()
                .push((*bucket, *tally));
        }
        let view = FleetView {
            seq: delta.seq,
            scopes: scopes
                .into_iter()
                .map(|(scope, buckets)| ScopeView {
                    scope,
                    bucket_ms: BUCKET_MS,
                    buckets,
                    open_until: None,
                    closed_until: None,
                    lease: false,
                })
                .collect(),
        };
        // A lost reply: the link keeps the delta for the next exchange.
        if matches!(how, Exchange::Ok) {
            link.apply(Instant::from_millis(local_now), &view);
        }
    }

    fn total(&self, scope: &str) -> Tally {
        self.buckets
            .iter()
            .filter(|((s, _), _)| s == scope)
            .fold(Tally::default(), |sum, (_, t)| sum.plus(*t))
    }
}

#[derive(Clone, Debug)]
enum Step {
    Count {
        process: usize,
        scope: usize,
        requests: u64,
        retries: u64,
    },
    Exchange {
        process: usize,
        how: Exchange,
    },
    Tick {
        ms: u64,
    },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..4usize, 0..2usize, 0..5u64, 0..3u64)
            .prop_map(|(process, scope, requests, retries)| Step::Count { process, scope, requests, retries }),
        2 => (0..4usize, prop_oneof![Just(Exchange::Ok), Just(Exchange::Unreachable), Just(Exchange::ReplyLost)])
            .prop_map(|(process, how)| Step::Exchange { process, how }),
        1 => (1..500u64).prop_map(|ms| Step::Tick { ms }),
    ]
}

const SCOPES: [&str; 2] = ["api", "db"];

proptest! {
    /// Any interleaving of counts, exchanges, unreachable stores and lost
    /// replies across four processes whose clocks disagree ends, once every
    /// process has exchanged, with every process seeing the same fleet
    /// counts as one process that saw every call, and the store holding
    /// each count once.
    #[test]
    fn every_interleaving_gives_the_counts_of_one_process(
        steps in proptest::collection::vec(step(), 0..120),
        skews in proptest::collection::vec(0..100_000u64, 4),
    ) {
        let mut store = Store::default();
        let mut links: Vec<FleetLink> = (0..4).map(|_| FleetLink::new(5_000)).collect();
        let mut own = [[Tally::default(); 2]; 4];
        let mut store_now = 1_700_000_000_000u64;
        // Each process's monotonic clock: the store's time minus its skew.
        let local = |process: usize, store_now: u64| store_now - skews[process];
        for step in steps {
            match step {
                Step::Count { process, scope, requests, retries } => {
                    let tally = Tally { requests, retries };
                    links[process].count(SCOPES[scope], BUCKET_MS, WINDOW_MS, Instant::from_millis(local(process, store_now)), tally);
                    own[process][scope] = own[process][scope].plus(tally);
                }
                Step::Exchange { process, how } => {
                    store.exchange(process, &mut links[process], local(process, store_now), store_now, how);
                }
                Step::Tick { ms } => store_now += ms,
            }
        }
        // Every process exchanges until its last delta is confirmed, then
        // once more so that its view holds everyone's last counts.
        for _ in 0..3 {
            for (process, link) in links.iter_mut().enumerate() {
                store.exchange(process, link, local(process, store_now), store_now, Exchange::Ok);
            }
        }
        for (s, scope) in SCOPES.iter().enumerate() {
            let everyone = own.iter().fold(Tally::default(), |sum, p| sum.plus(p[s]));
            prop_assert_eq!(store.total(scope), everyone, "the store counted {} once each", scope);
            for (process, link) in links.iter().enumerate() {
                if own[process][s].is_empty() && link.others_total(scope).is_empty() {
                    // A process that never used the scope keeps no view of it.
                    continue;
                }
                prop_assert_eq!(own[process][s].plus(link.others_total(scope)), everyone, "process {} in {}", process, scope);
            }
        }
    }
}

#[test]
fn a_lost_reply_is_sent_again_and_counted_once() {
    let mut store = Store::default();
    let mut link = FleetLink::new(5_000);
    link.count(
        "api",
        BUCKET_MS,
        WINDOW_MS,
        Instant::from_millis(10),
        Tally {
            requests: 3,
            retries: 1,
        },
    );
    store.exchange(0, &mut link, 20, 1_000, Exchange::ReplyLost);
    link.count(
        "api",
        BUCKET_MS,
        WINDOW_MS,
        Instant::from_millis(30),
        Tally {
            requests: 1,
            retries: 0,
        },
    );
    store.exchange(0, &mut link, 40, 1_020, Exchange::Ok);
    assert_eq!(
        store.total("api"),
        Tally {
            requests: 3,
            retries: 1
        },
        "the resent delta counted once"
    );
    store.exchange(0, &mut link, 50, 1_030, Exchange::Ok);
    assert_eq!(
        store.total("api"),
        Tally {
            requests: 4,
            retries: 1
        }
    );
    assert_eq!(
        link.others_total("api"),
        Tally::default(),
        "its own counts are not another's"
    );
}

#[test]
fn health_goes_stale_without_views() {
    let mut store = Store::default();
    let mut link = FleetLink::new(5_000);
    assert_eq!(link.health(Instant::from_millis(0)), FleetHealth::Detached);
    store.exchange(0, &mut link, 1_000, 50_000, Exchange::Ok);
    assert_eq!(link.health(Instant::from_millis(3_000)), FleetHealth::Live);
    store.exchange(0, &mut link, 4_000, 53_000, Exchange::Unreachable);
    assert_eq!(link.health(Instant::from_millis(6_001)), FleetHealth::Stale);
    store.exchange(0, &mut link, 7_000, 56_000, Exchange::Ok);
    assert_eq!(link.health(Instant::from_millis(7_000)), FleetHealth::Live);
}
