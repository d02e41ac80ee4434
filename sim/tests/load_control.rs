//! Seeded runs of the two load-control experiments, asserting the findings
//! `make sim-load` reports in `bench/sim/`. The limiter run is shortened
//! (60 s phases); the throttle run is the full ramp, which is cheap.
//! Fixed seeds: a failure here is a change in stoic's throttle or limiter,
//! or in the models, not noise.

use stoic_sim::finding::Finding;
use stoic_sim::limiter::{self, LimitVariant, LimiterParams, Phase};
use stoic_sim::limiter_findings;
use stoic_sim::throttle::{self, RampParams};
use stoic_sim::throttle_findings::{self, steady_span, K};

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
fn the_throttle_rejects_by_the_formula_and_bounds_the_servers_load() {
    let p = RampParams::default();
    let with = throttle::run(&p, true, 7);
    let without = throttle::run(&p, false, 7);
    assert_all_hold(&throttle_findings::check(&p, &with, &without), 4);
    // The steady state itself: a third of 3x demand rejected, 2x sent.
    let steady = steady_span(&p, &with);
    assert!((steady.rejected() - (1.0 - K / p.high_x)).abs() < 0.03);
    let sent = steady.rate(steady.sum.sent) / f64::from(p.capacity_per_sec);
    assert!((sent - K).abs() < 0.15, "{sent}");
}

fn short_netflix() -> LimiterParams {
    let phase = |rate_per_sec| Phase {
        rate_per_sec,
        secs: 60.0,
    };
    LimiterParams {
        phases: vec![phase(50.0), phase(90.0), phase(200.0), phase(100.0)],
        ..LimiterParams::default()
    }
}

#[test]
fn the_gradient_limit_protects_latency_where_no_limit_lets_it_grow() {
    let p = short_netflix();
    let variants = LimitVariant::ALL.to_vec();
    let runs: Vec<_> = variants.iter().map(|v| limiter::run(&p, *v, 11)).collect();
    let wide = limiter::run(
        &limiter_findings::wide(&p, 20, 30.0),
        LimitVariant::Gradient,
        11,
    );
    let findings = limiter_findings::check(&p, &variants, &runs, &wide, 20);
    // 60 s at 200/s builds a 6,000-request backlog (a minute of
    // queueing), so the unbounded-growth claim holds on the short run too.
    assert_all_hold(&findings, 9);
    // Without a limiter every request is answered; with one, the rejected
    // ones are not sent.
    for (v, r) in variants.iter().zip(&runs) {
        for s in &r.phases {
            assert_eq!(
                s.latency.count as u64 + s.rejected,
                s.offered,
                "{}",
                v.code()
            );
        }
    }
}
