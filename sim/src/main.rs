fn main() {
    let sweep = stoic_sim::contention_sweep::ContentionSweep::default();
    let t = std::time::Instant::now();
    let points = sweep.run(stoic_sim::parallel::available_threads(), &|| {});
    eprintln!("{:?}", t.elapsed());
    for p in &points {
        println!(
            "{} {} {:.0} {:.0}",
            p.strategy.code(),
            p.clients,
            p.mean_calls,
            p.mean_completion_ms
        );
    }
    for f in stoic_sim::contention_findings::check(&points, 100) {
        println!("{f}");
    }
}
