#!/usr/bin/env python3
"""Recomputes the gradient scenarios of ``limiter.json`` with a model of
the limiter written from its documented rules, not from the Rust code:

- the gradient: every ``update_interval_ms`` (from the interval's first
  signal), ``g = clamp(min_rtt * (1 + buffer) / p, 0.5, 2)`` with ``p`` the
  interval's percentile (nearest rank); 0.5 if the interval held a drop;
  the limit stays when ``g >= 1`` and at most half of it was in flight;
  else ``floor(L*g + sqrt(L*g))`` within ``[min_limit, max_limit]``;
- the min RTT: the same percentile of ``probe_samples`` latencies (every
  latency for the first measurement; for a re-measurement only those sent
  with at most ``min_limit`` in flight), changed only
  when a measurement completes; the next one starts ``probe_interval +
  SplitMix64.below(probe_interval * jitter + 1)`` later; one that has not
  completed within a probe interval is dropped.

Checks every ``expect`` and ``expect_range`` of the gradient scenarios
(the AIMD and queue scenarios are skipped) and exits non-zero on any
difference. Usage: ``python3 tests/vectors/core_only/limiter_check.py``.
"""

import json
import math
import os
import sys

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return (self.next_u64() * n) >> 64


def milli(x):
    return min(1000, max(0, math.floor(x * 1000 + 1e-6)))


def nearest_rank(values, q_milli):
    s = sorted(values)
    rank = min(max(-(-q_milli * len(s) // 1000), 1), len(s))
    return s[rank - 1]


class Limiter:
    def __init__(self, cfg, seed):
        a = dict(kind="gradient", update_interval_ms=1000, percentile=0.5, buffer=0.25,
                 probe_interval_ms=60000, probe_jitter=0.15, probe_samples=50)
        a.update(cfg.get("algorithm", {}))
        assert a["kind"] == "gradient"
        self.lo, self.hi = cfg.get("min_limit", 3), cfg.get("max_limit", 1000)
        self.limit = cfg.get("initial_limit", 20)
        self.interval, self.q = a["update_interval_ms"], milli(a["percentile"])
        self.buffer = milli(a["buffer"])
        self.probe, self.jitter = a["probe_interval_ms"], milli(a["probe_jitter"])
        self.need = a["probe_samples"]
        self.in_flight, self.out, self.next_id, self.clock = 0, set(), 1, 0
        self.started, self.samples, self.dropped, self.peak = None, [], False, 0
        self.baseline, self.measuring, self.since, self.next_at = None, True, 0, None
        self.taken, self.rng = [], SplitMix64(seed)

    # -- min RTT
    def schedule(self, now):
        self.taken = []
        spread = self.probe * self.jitter // 1000
        self.measuring, self.next_at = False, now + self.probe + self.rng.below(spread + 1)

    def tick(self, now):
        if not self.measuring and now >= self.next_at:
            self.measuring, self.since, self.next_at, self.taken = True, now, None, []
        elif self.measuring and self.baseline is not None and now - self.since >= self.probe:
            self.schedule(now)

    def min_rtt_sample(self, now, ms, quiet):
        self.tick(now)
        if self.measuring and (quiet or self.baseline is None):
            self.taken.append(max(ms, 1))
            if len(self.taken) >= self.need:
                self.baseline = nearest_rank(self.taken, self.q)
                self.schedule(now)

    # -- gradient
    def roll(self, now):
        self.tick(now)
        if self.started is None or now - self.started < self.interval:
            return
        if self.dropped:
            g = 0.5
        elif self.baseline is not None and self.samples:
            p = nearest_rank(self.samples, self.q)
            g = min(max(self.baseline * (1000 + self.buffer) / 1000.0 / p, 0.5), 2.0)
        else:
            g = None
        if g is not None and not (g >= 1.0 and self.peak * 2 < self.limit):
            scaled = self.limit * g
            self.limit = min(max(math.floor(scaled + math.sqrt(scaled)), self.lo), self.hi)
        self.started, self.samples, self.dropped, self.peak = None, [], False, self.in_flight

    def observe(self, t):
        self.clock = max(self.clock, t)
        return self.clock

    def acquire(self, t):
        now = self.observe(t)
        self.roll(now)
        if self.in_flight >= self.limit:
            return None
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        permit = (self.next_id, self.in_flight, self.limit)
        self.out.add(self.next_id)
        self.next_id += 1
        return permit

    def release(self, t, permit, kind, ms=0):
        now = self.observe(t)
        if permit[0] not in self.out:
            return False
        self.out.remove(permit[0])
        self.in_flight -= 1
        self.roll(now)
        if kind == "success":
            if len(self.samples) < 1000:
                self.samples.append(max(ms, 1))
            quiet = permit[1] <= self.lo
            self.min_rtt_sample(now, ms, quiet)
        if kind == "dropped":
            self.dropped = True
        if kind != "ignored" and self.started is None:
            self.started = now
        return True

    def status(self):
        return dict(limit=self.limit, in_flight=self.in_flight, waiting=0,
                    min_rtt_ms=self.baseline, measuring=self.measuring,
                    next_probe_ms=self.next_at)


def outcome(server, n, position, in_round=False):
    if server.get("ignored"):
        return "ignored", server["base_ms"]
    if "drop_over" in server and position > server["drop_over"]:
        return "dropped", server["base_ms"]
    if in_round and position == 1 and "first_ms" in server:
        return "success", server["first_ms"]
    extra = server.get("per_extra_ms", 0) * max(0, n - server.get("capacity", n))
    return "success", server["base_ms"] + extra


class Runner:
    def __init__(self, lim):
        self.lim, self.permits, self.pipeline, self.errors = lim, {}, [], []

    def check(self, here, actual, step):
        for k, want in step.get("expect", {}).items():
            if actual.get(k, "missing") != want:
                self.errors.append(f"{here}: {k} = {actual.get(k, 'missing')}, file says {want}")
        for k, (lo, hi) in step.get("expect_range", {}).items():
            if not lo <= actual[k] <= hi:
                self.errors.append(f"{here}: {k} = {actual[k]} not in [{lo}, {hi}]")

    def run(self, steps, base, at):
        for i, step in enumerate(steps):
            here, t = f"{at}[{i}]", base + step.get("t_ms", 0)
            if "repeat" in step:
                for r in range(step["repeat"]):
                    self.run(step["steps"], t + r * step.get("every_ms", 0), f"{here}#{r}")
                self.check(here, self.lim.status(), step)
            else:
                self.check(here, self.step(step, t), step)

    def step(self, step, t):
        lim, op = self.lim, step["op"]
        if op == "acquire":
            p = lim.acquire(t)
            if p is None:
                return dict(kind="rejected", reason="concurrency_limited", limit=lim.limit)
            self.permits[step.get("as")] = p
            return dict(kind="admitted", in_flight=p[1], limit=p[2])
        if op == "release":
            o = step["outcome"]
            counted = lim.release(t, self.permits[step["permit"]], o["kind"], o.get("latency_ms", 0))
            return dict(counted=counted, limit=lim.limit)
        if op == "status":
            return dict(lim.status(), next_timeout_ms=None)
        if op == "poll":  # no queue in these scenarios
            return dict(kind="none")
        server = step["server"]
        if op == "round":
            admitted, rejected = [], 0
            for _ in range(step["concurrency"]):
                p = lim.acquire(t)
                if p is None:
                    rejected += 1
                else:
                    admitted.append(p)
            for i, p in enumerate(admitted):
                kind, ms = outcome(server, len(admitted), i + 1, in_round=True)
                lim.release(t + ms, p, kind, ms)
            return dict(admitted=len(admitted), rejected=rejected, limit=lim.limit,
                        min_rtt_ms=lim.baseline, measuring=lim.measuring)
        if op == "steady":
            if self.pipeline:
                p = self.pipeline.pop(0)
                kind, ms = outcome(server, len(self.pipeline) + 1, 1)
                lim.release(t, p, kind, ms)
            while len(self.pipeline) < step["concurrency"]:
                p = lim.acquire(t)
                if p is None:
                    break
                self.pipeline.append(p)
            return dict(in_flight=len(self.pipeline), limit=lim.limit, min_rtt_ms=lim.baseline)
        raise ValueError(op)


def main():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "limiter.json")
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    errors, checked = [], 0
    for s in doc["scenarios"]:
        if s["config"].get("algorithm", {}).get("kind", "gradient") != "gradient":
            continue
        if "max_queue" in s["config"]:
            continue
        runner = Runner(Limiter(s["config"], s["seed"]))
        runner.run(s["steps"], 0, s["id"])
        errors += runner.errors
        checked += 1
    print(f"{checked} gradient scenarios checked")
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
