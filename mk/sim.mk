# Simulators (sim/, package stoic-sim): Brooker's contention model with
# stoic's backoff, an overload model with stoic's Policy deciding every
# retry, two hedging experiments (a fan-out read with stragglers, one
# queue pushed to saturation) with stoic deciding every hedge, and two
# load-control experiments (the client-side throttle under a demand ramp,
# the adaptive concurrency limiter in Netflix's example). Outputs (tables, CSV, SVG and PNG charts) go to bench/sim/ and are
# committed. Their test, a small sweep, runs in `make test-rust`.

SIM_OUT := bench/sim
SIM_RUN := $(CARGO) run --quiet --locked --release -p stoic-sim --

.PHONY: sim sim-font sim-contention sim-overload sim-hedging sim-hedging-fanout sim-hedging-saturation sim-load sim-load-throttle sim-load-limiter

sim-font: ## Install the simulators' chart font (fonts-dejavu-core) if missing
	@scripts/ensure-sim-font.sh

sim-contention: sim-font ## Contention sweep (10..190 clients, 100 runs each) into bench/sim/
	$(SIM_RUN) contention --out $(SIM_OUT) > $(SIM_OUT)/contention.md

sim-overload: sim-font ## Overload sweep (failure rate 0..100 %, 5 client policies) into bench/sim/
	$(SIM_RUN) overload --out $(SIM_OUT) > $(SIM_OUT)/overload.md

sim-hedging-fanout: sim-font ## Hedging, fan-out read (100 leaves, 1 % stragglers at 1 s) next to "The Tail at Scale", into bench/sim/
	$(SIM_RUN) hedging-fanout --out $(SIM_OUT) > $(SIM_OUT)/hedging_fanout.md

sim-hedging-saturation: sim-font ## Hedging into one queue pushed to saturation, with and without the budget, into bench/sim/
	$(SIM_RUN) hedging-saturation --out $(SIM_OUT) > $(SIM_OUT)/hedging_saturation.md

sim-hedging: sim-hedging-fanout sim-hedging-saturation ## Both hedging experiments, tables printed and written to bench/sim/
	@cat $(SIM_OUT)/hedging_fanout.md $(SIM_OUT)/hedging_saturation.md

sim-load-throttle: sim-font ## Client-side throttling while demand ramps 0.5x -> 3x capacity -> 0.5x, into bench/sim/
	$(SIM_RUN) load-throttle --out $(SIM_OUT) > $(SIM_OUT)/load_throttle.md

sim-load-limiter: sim-font ## Netflix's adaptive-limit example (concurrency 2; 50/90/200/100 req/s), with and without the limiter, into bench/sim/
	$(SIM_RUN) load-limiter --out $(SIM_OUT) > $(SIM_OUT)/load_limiter.md

sim-load: sim-load-throttle sim-load-limiter ## Both load-control experiments, tables printed and written to bench/sim/
	@cat $(SIM_OUT)/load_throttle.md $(SIM_OUT)/load_limiter.md

sim: sim-contention sim-overload sim-hedging sim-load ## Every simulator sweep in release, with tables, CSV and charts in bench/sim/
