# `make run` and `make test` work on a fresh machine: each creates .venv when missing and
# installs the project with the web page, the hall and the dev extras (everything `make run`
# uses), re-installing only when pyproject.toml (or the native core's sources) changed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-slow typecheck clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The native search core (rules/engine/_native.c) is compiled by the install: a change to
# it, or to setup.py, installs again so the tests run the core as it now is.
$(STAMP): pyproject.toml setup.py rules/engine/_native.c | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[web,hall,dev]'
	touch $(STAMP)

# The board's web page opens beside the terminal simulator (on this machine only);
# `make run WEB=` runs without it, `make run WEB=127.0.0.1:8090` elsewhere.
WEB ?= 127.0.0.1:8080

run: $(STAMP)
	@echo "The crownhead command is $(BIN)/crownhead (or: source $(BIN)/activate); see the README's Commands."
ifneq ($(strip $(WEB)),)
	@echo "The board's web page: http://$(WEB)/"
	$(BIN)/crownhead run --web $(WEB)
else
	$(BIN)/crownhead run
endif

# A 32-bit MicroPython for the Pico firmware's tests (tests/test_mcu_pico.py): MicroPython's
# WebAssembly port from npm, run by Node.js. Without npm the tests that need it are skipped
# and say why. One retry, soon: where the registry cannot be reached, make test goes on
# after about 3 s instead of npm's minute of retries.
MP32 := tests/micropython32
MP32_STAMP := $(MP32)/node_modules/.installed

$(MP32_STAMP): $(MP32)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix $(MP32) --no-audit --no-fund --loglevel=error --prefer-offline \
			--fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 && touch $@ \
			|| echo "npm ci failed: the 32-bit MicroPython tests will be skipped"; \
	else \
		echo "npm is not installed: the 32-bit MicroPython tests will be skipped"; \
	fi

# mypy checks the package under its installed names: the folders are linked into
# build/typecheck/crownhead as setup.py's package_dir maps them (mypy cannot follow the
# editable install's import hook).
TYPECHECK := build/typecheck/crownhead
PACKAGE_FOLDERS := squares rules hal sim firmware

typecheck: $(STAMP)
	@rm -rf $(TYPECHECK) && mkdir -p $(TYPECHECK)
	@for f in crownhead/*; do ln -s ../../../$$f $(TYPECHECK)/; done
	@for d in $(PACKAGE_FOLDERS); do ln -s ../../../$$d $(TYPECHECK)/$$d; done
	$(BIN)/python -m mypy

# The modules are compiled to bytecode first, as a user's first run would leave them: where
# PYTHONDONTWRITEBYTECODE is set (some CI images set it) each of the suite's few hundred
# `crownhead` processes would otherwise compile the whole package from source again.
COMPILED := squares rules hal sim firmware crownhead tests conftest.py
# JOBS workers that take tests from each other's queues (worksteal): with xdist's default
# the tests are handed out in runs of neighbours, and one worker was left with a run of
# browser tests for the last 40-55 s while the other stood idle. Three on two cores: the
# browser, broker and two-board tests wait on other processes much of their time (a clean
# clone, idle: 4 min 5 s with three, 4 min 51 s with two; `make test JOBS=2`).
JOBS ?= 3

test: $(STAMP) $(MP32_STAMP) typecheck
	$(BIN)/ruff check
	$(BIN)/ruff format --check
	$(BIN)/python -m compileall -q -j 0 $(COMPILED) >/dev/null
	$(BIN)/python -m pytest -q -n $(JOBS) --dist worksteal

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

clean:
	rm -rf $(VENV) build *.egg-info $(MP32)/node_modules
