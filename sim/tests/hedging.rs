//! Small seeded runs of the two hedging experiments, asserting the findings
//! `make sim-hedging` reports in `bench/sim/`. Fixed seeds: a failure here
//! is a change in stoic's hedging decisions or in the models, not noise.

use stoic_sim::fanout::FanoutParams;
use stoic_sim::fanout_findings;
use stoic_sim::fanout_sweep::{find, FanoutSweep};
use stoic_sim::finding::Finding;
use stoic_sim::hedge_variant::{default_budget_ratio, FanoutVariant, SaturationVariant};
use stoic_sim::parallel::available_threads;
use stoic_sim::saturation::SaturationParams;
use stoic_sim::saturation_findings::{self, FLOOR_SLACK};
use stoic_sim::saturation_sweep::{self, SaturationSweep};

fn assert_all_hold(findings: &[Finding], expected: usize) {
    assert_eq!(findings.len(), expected);
    let failing: Vec<String> = findings
        .iter()
        .filter(|f| !f.holds)
        .map(ToString::to_string)
        .collect();
    assert!(failing.is_empty(), "{}", failing.join("\n"));
}

fn small_fanout() -> FanoutSweep {
    FanoutSweep {
        params: FanoutParams {
            requests: 500,
            ..FanoutParams::default()
        },
        runs: 2,
        ..FanoutSweep::default()
    }
}

#[test]
fn hedging_cuts_the_fan_out_tail_for_little_extra_load() {
    let sweep = small_fanout();
    let points = sweep.run(available_threads(), &|| {});
    assert_all_hold(
        &fanout_findings::check(&points, sweep.params.straggler_ms),
        5,
    );
    // The numbers behind the headline, asserted directly as well.
    let none = find(&points, FanoutVariant::None).unwrap();
    let twice = find(&points, FanoutVariant::FixedTwice).unwrap();
    assert!(none.latency.p999 >= 1_000.0 && twice.latency.p999 < 100.0);
    for p in &points {
        assert_eq!(p.gave_up, 0, "{}", p.variant.code());
        assert!(
            p.extra_load() < default_budget_ratio(),
            "{}",
            p.variant.code()
        );
    }
}

#[test]
fn fan_out_results_do_not_depend_on_threads() {
    let sweep = FanoutSweep {
        params: FanoutParams {
            requests: 100,
            ..FanoutParams::default()
        },
        variants: vec![FanoutVariant::P95, FanoutVariant::FixedTwice],
        ..small_fanout()
    };
    assert_eq!(sweep.run(1, &|| {}), sweep.run(3, &|| {}));
}

#[test]
fn the_budget_bounds_hedging_into_a_saturated_queue() {
    let sweep = SaturationSweep {
        params: SaturationParams {
            duration_ms: 20_000.0,
            ..SaturationParams::default()
        },
        load_percents: vec![50, 80, 100],
        runs: 1,
        ..SaturationSweep::default()
    };
    let points = sweep.run(available_threads(), &|| {});
    assert_all_hold(&saturation_findings::check(&points, 100, 50), 5);
    let ceiling = 1.0 + default_budget_ratio() + FLOOR_SLACK;
    for load in [50, 80, 100] {
        let budgeted = saturation_sweep::find(&points, SaturationVariant::Budgeted, load).unwrap();
        assert!(
            budgeted.load() <= ceiling,
            "{load}%: {:.3}x",
            budgeted.load()
        );
        let none = saturation_sweep::find(&points, SaturationVariant::None, load).unwrap();
        assert_eq!(none.copies, none.calls, "{load}%");
    }
    let unbudgeted = saturation_sweep::find(&points, SaturationVariant::Unbudgeted, 100).unwrap();
    assert!(unbudgeted.load() > 1.8, "{:.3}x", unbudgeted.load());
}
