# surge-pipeline. `make demo` installs everything and runs the main job; `make test` runs the tests.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
SURGE := $(VENV)/bin/surge
STAMP := $(VENV)/.installed
export PREFECT_HOME ?= $(CURDIR)/.surge/prefect

.PHONY: setup system demo test bench lint images clean

setup: system $(STAMP)

system:
	bash scripts/setup-system.sh

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: setup
	$(SURGE) run examples/programs.jsonl --store .surge/demo-store --repeats 2
	$(SURGE) build sc tc dr ml cl bg rl --n 3 --batch-size 3 --language python --language python3 --auto-approve --store .surge/demo-store
	@# fl needs a Lean checker (docs/lean.md): built where one exists, else said so
	if $(PY) -c "from pipeline.build.prove import missing_checker as m; raise SystemExit(bool(m()))"; then \
	  $(SURGE) build fl --n 3 --batch-size 3 --store .surge/demo-store; \
	else echo "fl: skipped in the demo: no Lean checker on this machine (surge doctor; docs/lean.md)"; fi
	$(SURGE) stats --store .surge/demo-store

test: setup
	$(PY) -m pytest -q tests

bench: setup
	$(PY) bench/run_all.py

lint: setup
	$(PY) -m ruff check pipeline sandboxes sources flows tests bench
	$(PY) -m ruff format --check pipeline sandboxes sources flows tests bench
	$(PY) -m mypy pipeline sandboxes sources flows

images: setup
	bash dockerfiles/build.sh

clean:
	rm -rf .surge build *.egg-info
