fn main() {
    let sweep = stoic_sim::overload_sweep::OverloadSweep::default();
    let t = std::time::Instant::now();
    let points = sweep.run(stoic_sim::parallel::available_threads(), &|| {});
    eprintln!("{:?}", t.elapsed());
    for p in &points {
        println!(
            "{} {} amp {:.2} good {:.3} shed {:.3} {:?}",
            p.variant.code(),
            p.failure_percent,
            p.amplification(),
            p.goodput(),
            p.shed_share(),
            p.counts
        );
    }
    for f in stoic_sim::overload_findings::check(&points, 30) {
        println!("{f}");
    }
}
