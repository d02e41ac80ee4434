# Simulators (sim/, package stoic-sim): Brooker's contention model with
# stoic's backoff, and an overload model with stoic's Policy deciding every
# retry. Outputs (tables, CSV, SVG and PNG charts) go to bench/sim/ and are
# committed. Their test, a small sweep, runs in `make test-rust`.

SIM_OUT := bench/sim
SIM_RUN := $(CARGO) run --quiet --locked --release -p stoic-sim --

.PHONY: sim sim-font sim-contention sim-overload

sim-font: ## Install the simulators' chart font (fonts-dejavu-core) if missing
	@scripts/ensure-sim-font.sh

sim-contention: sim-font ## Contention sweep (10..190 clients, 100 runs each) into bench/sim/
	$(SIM_RUN) contention --out $(SIM_OUT) > $(SIM_OUT)/contention.md

sim-overload: sim-font ## Overload sweep (failure rate 0..100 %, 5 client policies) into bench/sim/
	$(SIM_RUN) overload --out $(SIM_OUT) > $(SIM_OUT)/overload.md

sim: sim-contention sim-overload ## Both simulator sweeps in release, with tables, CSV and charts in bench/sim/
