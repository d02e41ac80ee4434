//! `stoic-sim`: runs the contention, overload and hedging experiments,
//! prints a table and the checked findings, and writes CSV and charts.
//!
//! Exit status: 0 when every finding holds, 1 on an error, 2 when the sweep
//! ran but a finding does not hold (the outputs are still written).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use stoic_sim::contention_findings::HEADLINE_CLIENTS;
use stoic_sim::contention_sweep::ContentionSweep;
use stoic_sim::fanout::FanoutParams;
use stoic_sim::fanout_sweep::FanoutSweep;
use stoic_sim::finding::Finding;
use stoic_sim::limiter::{LimitVariant, LimiterParams};
use stoic_sim::overload::OverloadParams;
use stoic_sim::overload_sweep::OverloadSweep;
use stoic_sim::saturation::SaturationParams;
use stoic_sim::saturation_sweep::SaturationSweep;
use stoic_sim::throttle::RampParams;
use stoic_sim::{
    contention_findings, contention_report, fanout_findings, fanout_report, font, limiter,
    limiter_findings, limiter_report, overload_findings, overload_report, parallel,
    saturation_findings, saturation_report, seed, throttle, throttle_findings, throttle_report,
};

/// Contention and overload simulators driven by stoic's real decisions.
#[derive(Debug, Parser)]
#[command(name = "stoic-sim", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Brooker's "Exponential Backoff And Jitter" contention model with
    /// stoic's backoff strategies: calls and completion time vs clients.
    Contention(ContentionArgs),
    /// Clients retrying through a stoic Policy against a server of limited
    /// capacity: amplification and goodput vs the injected failure rate.
    Overload(OverloadArgs),
    /// "The Tail at Scale"'s fan-out read (100 leaves, 1 % stragglers at
    /// 1 s) with stoic's hedged calls: request p50/p99/p99.9 and extra load
    /// per hedging setting, next to the paper's figures.
    HedgingFanout(FanoutArgs),
    /// Hedged calls into one queue pushed to saturation, with and without
    /// the retry budget: load multiplier and latency vs offered load.
    HedgingSaturation(SaturationArgs),
    /// Client-side throttling (stoic's Throttle) while demand ramps from
    /// 0.5x to 3x a server's capacity and back: rejection against the SRE
    /// formula, the server's load, recovery.
    LoadThrottle(LoadArgs),
    /// Netflix's example of an adaptive concurrency limit (stoic's
    /// Limiter): a server of concurrency 2, 50/90/200/100 requests/s for
    /// 100 s each, with and without the limiter.
    LoadLimiter(LoadArgs),
}

#[derive(Debug, Args)]
struct LoadArgs {
    #[command(flatten)]
    common: Common,
}

/// Options every sweep takes.
#[derive(Debug, Args)]
struct Common {
    /// Where the CSV and charts go.
    #[arg(long, default_value = "bench/sim")]
    out: PathBuf,
    /// The sweep's seed (each run's seed derives from it).
    #[arg(long, default_value_t = 2015)]
    seed: u64,
    /// Threads to spread the points over (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Write the CSV only, no charts (no font needed).
    #[arg(long)]
    no_charts: bool,
}

#[derive(Debug, Args)]
struct ContentionArgs {
    #[command(flatten)]
    common: Common,
    /// Runs averaged per point.
    #[arg(long, default_value_t = 100)]
    runs: u32,
    /// Largest client count (the sweep goes from 10 by 10).
    #[arg(long, default_value_t = 190)]
    max_clients: u32,
}

#[derive(Debug, Args)]
struct OverloadArgs {
    #[command(flatten)]
    common: Common,
    /// Runs summed per point.
    #[arg(long, default_value_t = 3)]
    runs: u32,
    /// Simulated seconds of arrivals per run.
    #[arg(long, default_value_t = 60)]
    seconds: u32,
}

#[derive(Debug, Args)]
struct FanoutArgs {
    #[command(flatten)]
    common: Common,
    /// Runs pooled per setting.
    #[arg(long, default_value_t = 4)]
    runs: u32,
    /// Requests per run (each of 100 sub-requests).
    #[arg(long, default_value_t = 10_000)]
    requests: u32,
}

#[derive(Debug, Args)]
struct SaturationArgs {
    #[command(flatten)]
    common: Common,
    /// Runs pooled per point.
    #[arg(long, default_value_t = 2)]
    runs: u32,
    /// Simulated seconds of arrivals per run.
    #[arg(long, default_value_t = 60)]
    seconds: u32,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Contention(args) => contention(&args),
        Command::Overload(args) => overload(&args),
        Command::HedgingFanout(args) => hedging_fanout(&args),
        Command::HedgingSaturation(args) => hedging_saturation(&args),
        Command::LoadThrottle(args) => load_throttle(&args.common),
        Command::LoadLimiter(args) => load_limiter(&args.common),
    };
    match result {
        Ok(findings) if findings.iter().all(|f| f.holds) => ExitCode::SUCCESS,
        Ok(_) => {
            eprintln!("stoic-sim: a finding does not hold (outputs written)");
            ExitCode::from(2)
        }
        Err(message) => {
            eprintln!("stoic-sim: {message}");
            ExitCode::FAILURE
        }
    }
}

fn contention(args: &ContentionArgs) -> Result<Vec<Finding>, String> {
    let sweep = ContentionSweep {
        clients: (1..=args.max_clients / 10).map(|k| k * 10).collect(),
        runs: args.runs,
        seed: args.common.seed,
        ..ContentionSweep::default()
    };
    prepare(&args.common)?;
    let label = format!(
        "contention: {} strategies x {} client counts x {} runs",
        sweep.strategies.len(),
        sweep.clients.len(),
        sweep.runs
    );
    let (points, secs) = timed(&label, sweep.len(), &args.common, |threads, tick| {
        sweep.run(threads, tick)
    });
    print!(
        "{}",
        contention_report::table(&points, &sweep.strategies).to_markdown()
    );
    contention_report::write(
        &args.common.out,
        &points,
        &sweep.strategies,
        sweep.runs,
        !args.common.no_charts,
    )?;
    let findings = contention_findings::check(&points, HEADLINE_CLIENTS);
    report(&findings, secs, &args.common);
    Ok(findings)
}

fn overload(args: &OverloadArgs) -> Result<Vec<Finding>, String> {
    let sweep = OverloadSweep {
        params: OverloadParams {
            duration_ms: f64::from(args.seconds) * 1000.0,
            ..OverloadParams::default()
        },
        runs: args.runs,
        seed: args.common.seed,
        ..OverloadSweep::default()
    };
    prepare(&args.common)?;
    let label = format!(
        "overload: {} policies x {} failure rates x {} runs of {} s",
        sweep.variants.len(),
        sweep.failure_percents.len(),
        sweep.runs,
        args.seconds
    );
    let (points, secs) = timed(&label, sweep.len(), &args.common, |threads, tick| {
        sweep.run(threads, tick)
    });
    print!(
        "{}",
        overload_report::summary(&points, &[0, 10, 30, 50, 70, 100]).to_markdown()
    );
    overload_report::write(
        &args.common.out,
        &points,
        &sweep.variants,
        !args.common.no_charts,
    )?;
    let findings = overload_findings::check(&points, 30);
    report(&findings, secs, &args.common);
    Ok(findings)
}

fn hedging_fanout(args: &FanoutArgs) -> Result<Vec<Finding>, String> {
    let sweep = FanoutSweep {
        params: FanoutParams {
            requests: args.requests,
            ..FanoutParams::default()
        },
        runs: args.runs,
        seed: args.common.seed,
        ..FanoutSweep::default()
    };
    prepare(&args.common)?;
    let label = format!(
        "hedging fan-out: {} settings x {} runs of {} requests x {} sub-requests",
        sweep.variants.len(),
        sweep.runs,
        sweep.params.requests,
        sweep.params.fanout
    );
    let (points, secs) = timed(&label, sweep.len(), &args.common, |threads, tick| {
        sweep.run(threads, tick)
    });
    print!("{}", fanout_report::table(&points).to_markdown());
    println!("\nThe Tail at Scale (Dean and Barroso, CACM 2013) against stoic here:\n");
    print!("{}", fanout_report::paper(&points).to_markdown());
    fanout_report::write(&args.common.out, &points, !args.common.no_charts)?;
    let findings = fanout_findings::check(&points, sweep.params.straggler_ms);
    report(&findings, secs, &args.common);
    Ok(findings)
}

fn hedging_saturation(args: &SaturationArgs) -> Result<Vec<Finding>, String> {
    let sweep = SaturationSweep {
        params: SaturationParams {
            duration_ms: f64::from(args.seconds) * 1000.0,
            ..SaturationParams::default()
        },
        runs: args.runs,
        seed: args.common.seed,
        ..SaturationSweep::default()
    };
    prepare(&args.common)?;
    let label = format!(
        "hedging saturation: {} settings x {} loads x {} runs of {} s",
        sweep.variants.len(),
        sweep.load_percents.len(),
        sweep.runs,
        args.seconds
    );
    let (points, secs) = timed(&label, sweep.len(), &args.common, |threads, tick| {
        sweep.run(threads, tick)
    });
    print!("{}", saturation_report::table(&points).to_markdown());
    saturation_report::write(
        &args.common.out,
        &points,
        &sweep.variants,
        !args.common.no_charts,
    )?;
    let saturated = sweep.load_percents.iter().copied().max().unwrap_or(100);
    let light = sweep.load_percents.iter().copied().min().unwrap_or(50);
    let findings = saturation_findings::check(&points, saturated, light);
    report(&findings, secs, &args.common);
    Ok(findings)
}

fn load_throttle(common: &Common) -> Result<Vec<Finding>, String> {
    let p = RampParams::default();
    prepare(common)?;
    let label = format!(
        "load throttle: demand {}x to {}x capacity and back over {:.0} s, with and without the throttle",
        p.low_x,
        p.high_x,
        p.total_secs()
    );
    let (runs, secs) = timed(&label, 2, common, |threads, tick| {
        // The same seed for both: the same demand, request for request.
        let seed = seed::derive(common.seed, &[1]);
        parallel::map(
            &[true, false],
            threads,
            || (),
            |(), &on| throttle::run(&p, on, seed),
            tick,
        )
    });
    let (with, without) = (&runs[0], &runs[1]);
    println!(
        "## Client-side throttling: demand from {}x to {}x capacity and back
",
        p.low_x, p.high_x
    );
    println!(
        "Server capacity {}/s (the excess answered 503); stoic's default throttle (K = 2, 120 s window). \"bare\": the same demand without the throttle. Every 30 s:\n",
        p.capacity_per_sec
    );
    print!(
        "{}",
        throttle_report::table(&p, with, without, 30).to_markdown()
    );
    throttle_report::write(&common.out, &p, with, without, !common.no_charts)?;
    let findings = throttle_findings::check(&p, with, without);
    report(&findings, secs, common);
    Ok(findings)
}

/// The wide server of the limiter's last finding: ten times the workers.
const WIDE_WORKERS: u32 = 20;

fn load_limiter(common: &Common) -> Result<Vec<Finding>, String> {
    let p = LimiterParams::default();
    let variants = LimitVariant::ALL.to_vec();
    prepare(common)?;
    let label = format!(
        "load limiter: {} settings x {} phases of 100 s, plus a server of {WIDE_WORKERS} workers",
        variants.len(),
        p.phases.len()
    );
    let wide_params = limiter_findings::wide(&p, WIDE_WORKERS, 100.0);
    let jobs: Vec<Option<LimitVariant>> =
        variants.iter().copied().map(Some).chain([None]).collect();
    let (mut runs, secs) = timed(&label, jobs.len(), common, |threads, tick| {
        // The same seed for every setting: the same arrivals and service
        // times until the settings' choices diverge.
        let seed = seed::derive(common.seed, &[2]);
        parallel::map(
            &jobs,
            threads,
            || (),
            |(), job| match job {
                Some(v) => limiter::run(&p, *v, seed),
                None => limiter::run(&wide_params, LimitVariant::Gradient, seed),
            },
            tick,
        )
    });
    let wide = runs.pop().unwrap_or_default();
    println!(
        "## Adaptive concurrency limit: Netflix's example
"
    );
    println!(
        "Server: {} workers, FIFO queue, log-normal service time (mean {} ms, sigma {}), capacity {:.0}/s. Goodput: answers within {:.0} ms per second.\n",
        p.workers,
        p.service_mean_ms,
        p.service_sigma,
        p.capacity_per_sec(),
        p.slo_ms
    );
    print!(
        "{}",
        limiter_report::table(&p, &variants, &runs).to_markdown()
    );
    println!("\nThe issue's expectations against the measured numbers:\n");
    print!(
        "{}",
        limiter_report::expectations(&p, &variants, &runs).to_markdown()
    );
    limiter_report::write(&common.out, &p, &variants, &runs, !common.no_charts)?;
    let findings = limiter_findings::check(&p, &variants, &runs, &wide, WIDE_WORKERS);
    report(&findings, secs, common);
    Ok(findings)
}

/// Registers the chart font first, so a missing font fails before the sweep.
fn prepare(common: &Common) -> Result<(), String> {
    if !common.no_charts {
        let path = font::register()?;
        eprintln!("chart font: {}", path.display());
    }
    Ok(())
}

/// Runs `sweep` with a progress bar on stderr (hidden when stderr is not a
/// terminal, so a start and an end line are printed as well) and returns its
/// result and wall time in seconds.
fn timed<R>(
    label: &str,
    points: usize,
    common: &Common,
    sweep: impl FnOnce(usize, &(dyn Fn() + Sync)) -> R,
) -> (R, f64) {
    let threads = common.threads.unwrap_or_else(parallel::available_threads);
    eprintln!("{label} on {threads} thread(s)");
    let bar = ProgressBar::new(points as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} points, {elapsed} elapsed, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // Wall time of the host process, not the model's: the model runs on
    // simulated time only.
    #[allow(clippy::disallowed_types, clippy::disallowed_methods)]
    let start = std::time::Instant::now();
    let result = sweep(threads, &|| bar.inc(1));
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    eprintln!("{points} points in {secs:.1} s");
    (result, secs)
}

fn report(findings: &[Finding], secs: f64, common: &Common) {
    println!();
    for f in findings {
        println!("{f}");
    }
    println!(
        "\nwall time {secs:.1} s; outputs in {}",
        common.out.display()
    );
}
