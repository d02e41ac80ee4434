//! A small sweep of each simulator, asserting the findings the full sweeps
//! in `bench/sim/` report. Small enough for a debug build in a few seconds;
//! the seeds are fixed, so a failure here is a change in stoic's decisions
//! or in the models, not noise.

use stoic_sim::contention_findings::{self, HEADLINE_CLIENTS};
use stoic_sim::contention_sweep::ContentionSweep;
use stoic_sim::finding::Finding;
use stoic_sim::overload::OverloadParams;
use stoic_sim::overload_findings;
use stoic_sim::overload_sweep::OverloadSweep;
use stoic_sim::parallel::available_threads;

fn assert_all_hold(findings: &[Finding], expected: usize) {
    assert_eq!(findings.len(), expected);
    let failing: Vec<String> = findings
        .iter()
        .filter(|f| !f.holds)
        .map(ToString::to_string)
        .collect();
    assert!(failing.is_empty(), "{}", failing.join("\n"));
}

#[test]
fn contention_findings_hold_with_stoics_backoff() {
    let sweep = ContentionSweep {
        clients: vec![20, 60, HEADLINE_CLIENTS, 140],
        runs: 20,
        ..ContentionSweep::default()
    };
    let points = sweep.run(available_threads(), &|| {});
    assert_eq!(points.len(), sweep.len());
    assert_all_hold(&contention_findings::check(&points, HEADLINE_CLIENTS), 5);
}

#[test]
fn contention_sweep_does_not_depend_on_threads() {
    let sweep = ContentionSweep {
        clients: vec![10, 30],
        runs: 5,
        ..ContentionSweep::default()
    };
    assert_eq!(sweep.run(1, &|| {}), sweep.run(3, &|| {}));
}

#[test]
fn budgets_keep_amplification_far_below_plain_retries() {
    let sweep = OverloadSweep {
        params: OverloadParams {
            duration_ms: 20_000.0,
            ..OverloadParams::default()
        },
        failure_percents: vec![0, 30, 100],
        runs: 1,
        ..OverloadSweep::default()
    };
    let points = sweep.run(available_threads(), &|| {});
    assert_all_hold(&overload_findings::check(&points, 30), 3);
}
