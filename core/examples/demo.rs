//! Walks failing calls through the engine with a virtual clock and prints
//! every decision: what the host would do, and why the engine said so.
//!
//! Run with `make demo`.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use stoic_core::hints::server_hint;
use stoic_core::key::idempotency_key;
use stoic_core::{
    Admission, CallSpec, Class, Config, Decision, Event, Instant, Method, NetworkErrorKind,
    Outcome, Policy, WallClock,
};

/// A scripted flaky server: what each attempt gets back.
enum Reply {
    Status(u16, &'static [(&'static str, &'static str)], &'static str),
    Network(NetworkErrorKind),
    ErrorBody,
}

fn run(policy: &mut Policy, clock: &mut u64, title: &str, spec: CallSpec<'_>, replies: &[Reply]) {
    println!("\n== {title}");
    let mut call = policy.start(Instant::from_millis(*clock), spec);
    if let Some(key) = call.idempotency_key() {
        println!("   idempotency key (made once, before the first attempt): {key}");
    }
    let mut replies = replies.iter();
    loop {
        let now = Instant::from_millis(*clock);
        let plan = match policy.before_attempt(now, &mut call) {
            Admission::Proceed(plan) => plan,
            Admission::Reject(give_up) => {
                let when = give_up.retry_at.map_or(String::new(), |t| {
                    format!(", may retry at t={} ms", t.as_millis())
                });
                println!(
                    "   rejected before sending: {}{when}",
                    give_up.reason.code()
                );
                println!("   observation: {}", give_up.observation);
                break;
            }
        };
        let reply = replies.next().unwrap_or(&Reply::Status(200, &[], ""));
        *clock += 40; // the attempt takes 40 ms
        let now = Instant::from_millis(*clock);
        let wall = WallClock::from_unix_millis(1_764_480_000_000 + *clock);
        let outcome = match reply {
            Reply::Status(status, headers, body) => {
                let hint = server_hint(headers.iter().copied(), Some(wall));
                Outcome::status(*status).with_hint(hint).with_detail(body)
            }
            Reply::Network(kind) => Outcome::network(*kind),
            Reply::ErrorBody => Outcome::rejected(Class::Transient)
                .with_detail("200 OK but body says {\"error\":\"busy\"}"),
        };
        let what = match reply {
            Reply::Status(s, [], _) => format!("HTTP {s}"),
            Reply::Status(s, h, _) => format!("HTTP {s} {h:?}"),
            Reply::Network(k) => format!("network {}", k.code()),
            Reply::ErrorBody => "200 with an error body".to_owned(),
        };
        let timeout = plan
            .timeout_ms
            .map_or("none".to_owned(), |t| format!("{t} ms"));
        print!(
            "   t={:>6} ms  attempt {} of {} (timeout {timeout}) -> {what:<34}",
            clock, plan.attempt, plan.max_attempts
        );
        match policy.on_outcome(now, &mut call, outcome) {
            Decision::Done(done) => {
                println!(
                    " done after {} attempts, {} ms",
                    done.attempts, done.total_ms
                );
                break;
            }
            Decision::Retry(retry) => {
                println!(
                    " retry in {:>5} ms ({}, {}, via {})",
                    retry.delay_ms,
                    retry.matched.code(),
                    retry.class.code(),
                    retry.source.code()
                );
                *clock += retry.delay_ms; // the host sleeps
            }
            Decision::GiveUp(give_up) => {
                println!(" give up: {}", give_up.reason.code());
                println!("   observation: {}", give_up.observation);
                break;
            }
        }
    }
}

fn main() {
    let mut policy = Policy::new(Config::with_seed(2026)).expect("valid config");
    let mut clock = 0u64;
    let key = idempotency_key("run-7", "create_order", r#"{"sku":"A-1","qty":2}"#).unwrap();

    run(
        &mut policy,
        &mut clock,
        "POST /orders: 503, a reset after sending, 429 with Retry-After, then success",
        CallSpec::http("create_order", Method::Post)
            .in_scope("orders")
            .with_key(&key),
        &[
            Reply::Status(503, &[], ""),
            Reply::Network(NetworkErrorKind::ResetAfterSend),
            Reply::Status(429, &[("Retry-After", "3")], ""),
            Reply::Status(201, &[], ""),
        ],
    );
    run(
        &mut policy,
        &mut clock,
        "POST /orders with invalid input: 422 goes back as an observation, never retried",
        CallSpec::http("create_order", Method::Post).with_key(&key),
        &[Reply::Status(
            422,
            &[],
            r#"{"error":"qty must be positive"}"#,
        )],
    );
    run(
        &mut policy,
        &mut clock,
        "POST without a key: a read timeout may have applied it, so it is not repeated",
        CallSpec::http("charge_card", Method::Post).in_scope("payments"),
        &[Reply::Network(NetworkErrorKind::ReadTimeout)],
    );
    run(
        &mut policy,
        &mut clock,
        "GET /orders/7: 200 with an error body, then 502s until attempts run out",
        CallSpec::http("get_order", Method::Get).in_scope("catalog"),
        &[
            Reply::ErrorBody,
            Reply::Status(502, &[], ""),
            Reply::Status(502, &[], ""),
            Reply::Status(502, &[], ""),
            Reply::Status(502, &[], "<html>Bad Gateway</html>"),
        ],
    );
    run(
        &mut policy,
        &mut clock,
        "GET /quota: the server asks for 10 minutes, past the 120 s deadline",
        CallSpec::http("get_quota", Method::Get).in_scope("quota"),
        &[Reply::Status(429, &[("Retry-After", "600")], "")],
    );
    run(
        &mut policy,
        &mut clock,
        "GET /orders/8: five failures in a row opened the catalog breaker, so nothing is sent",
        CallSpec::http("get_order", Method::Get).in_scope("catalog"),
        &[],
    );
    while let Some(event) = policy.poll_event() {
        if let Event::BreakerTransition {
            scope,
            from,
            to,
            at,
            ..
        } = event
        {
            println!(
                "\nevent: breaker `{scope}` {} -> {} at t={} ms",
                from.code(),
                to.code(),
                at.as_millis()
            );
        }
    }
}
