# hauntbox: `make sim` plays a game on the simulated board, `make test` runs every test.
# Both set up their own environment (Python venv + the MicroPython VM from npm).

PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
NODE_STAMP := node_modules/.installed
ARGS    ?=

.PHONY: sweeps sim pico test deps chromium screenshots web venv lint typecheck check-beams bench bench-sim bench-vm reliability flash flash-dry-run clean help

help:
	@echo "make sim          play a whole game on the simulated board (ARGS='--players 3 --seed 7 --noise none')"
	@echo "make pico         play a whole game on the emulated Pico: the official rp2 firmware in rp2040js (same ARGS as sim)"
	@echo "make test         run every test (unit, simulation, MicroPython VM, emulated Pico, host tools, lint)"
	@echo "make sweeps       both sensing margin sweeps: tables and docs/sweep-beams.png, docs/sweep-hits.png"
	@echo "make check-beams  beam accuracy over 10,000 simulated rotations with noise"
	@echo "make bench        the simulator and stats speed, best of 3 runs each (build/bench-sim.json, ~20 s), then heap, allocation, latency, interrupts-off and image figures on the emulated Pico (build/bench.json)"
	@echo "make bench-sim    only the simulator and stats speed, in CPU time, best of 3 runs each (build/bench-sim.json; SIM_ARGS='--repeat 1')"
	@echo "make bench-vm     the quick figures in the MicroPython WebAssembly VM and the simulator (rule parity)"
	@echo "make reliability  power cuts, injected faults, fuzzed and hostile serial input, damaged saves, on the simulator and the emulated Pico (build/reliability.json; ~15 min)"
	@echo "make web          the simulated board live in a browser on localhost:8080 (ARGS='--game haunted-house')"
	@echo "make screenshots  redraw docs/screenshots/ (each game's page in headless Chromium)"
	@echo "make flash        compile and copy the firmware to a Pico (ARGS='--port /dev/ttyACM0')"
	@echo "make flash-dry-run  list the files and sizes a flash would copy"

venv: $(STAMP)
# The user set (flash, play, simulate); `make test` adds the dev extra.
$(STAMP): pyproject.toml setup.py
	@echo "installing hauntbox into $(VENV) (first run only)..."
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install -qq -e .
	touch $@

$(DEV_STAMP): $(STAMP)
	@echo "installing the test tools (pytest, hypothesis, ruff, mypy) into $(VENV) (first run only)..."
	$(BIN)/python -m pip install -qq -e '.[dev]'
	touch $@

deps: $(DEV_STAMP) $(NODE_STAMP) chromium
# The browser tests of `hauntbox web` drive Debian's Chromium (never a downloaded
# browser): installed quietly when it is missing and we are root with apt;
# otherwise those tests skip with a one-line reason.
chromium:
	@if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing chromium for the browser tests (apt)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
	    >/dev/null 2>&1 || echo "chromium could not be installed: the browser tests will skip"; \
	fi

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

sim: $(STAMP)
	$(BIN)/python -m hauntbox_sim $(ARGS)

web: $(STAMP)
	$(BIN)/hauntbox web --port sim $(ARGS)

screenshots: deps
	$(BIN)/python tests/web/screenshots.py

pico: deps
	$(BIN)/python -m hauntbox_sim.pico $(ARGS)

# One worker per core: the emulated-Pico tests each keep a core busy, and
# worksteal lets the short tests fill the other while a long one runs.
test: deps
	$(BIN)/python -m pytest -n auto --dist worksteal

lint: $(DEV_STAMP)
	$(BIN)/ruff check firmware sim host tests

typecheck: $(DEV_STAMP)
	$(BIN)/python tests/typecheck.py

bench: bench-sim
	$(BIN)/python -m hauntbox_sim.pico.bench $(ARGS)

bench-sim: deps
	$(BIN)/python -m hauntbox_sim.bench.speed $(SIM_ARGS)

bench-vm: deps
	$(BIN)/python -m hauntbox_sim.bench.vm_figures $(ARGS)

reliability: deps
	$(BIN)/python -m hauntbox_sim.reliability.figures $(ARGS)

# Both margin sweeps (tables and docs/sweep-*.png); the charts need the charts extra.
sweeps: $(STAMP)
	$(BIN)/python -m pip install -qq -e '.[charts]'
	$(BIN)/hauntbox check beams --sweep $(ARGS)
	$(BIN)/hauntbox check hits --sweep $(ARGS)

check-beams: $(STAMP)
	$(BIN)/python -m hauntbox_sim.checks.accuracy beams --rotations 10000 $(ARGS)

flash: $(STAMP)
	$(BIN)/hauntbox flash $(ARGS)

flash-dry-run: $(STAMP)
	$(BIN)/hauntbox flash --dry-run

clean:
	rm -rf build .pytest_cache .ruff_cache .mypy_cache

distclean: clean
	rm -rf $(VENV) node_modules
