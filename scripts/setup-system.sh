#!/usr/bin/env bash
# Installs the Debian packages surge-pipeline needs: the sandbox, the toolchains the tests run,
# and the tools behind `make images` and the review-page browser test. Idempotent; root or sudo.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# The languages' packages come from their specs (sandboxes/languages/<name>.py, `setup_packages`), read by
# a stdlib-only script: this runs before the virtualenv exists, so it needs python3 first.
if ! command -v python3 >/dev/null; then
  echo "setup-system: installing python3 (to read the language specs)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3
fi
language_packages="$(python3 "$ROOT/sandboxes/languages/manifest.py" packages)"  # an assignment, so `set -e` stops on a failure
read -r -a LANGUAGE_PACKAGES <<<"$language_packages"
# The example plug-ins' own packages (a harness's library, e.g. CRUXEval-X's javatuples jar): one a line
# in examples/<plug-in>/debian-packages.txt, `#` starting a comment.
PLUGIN_PACKAGES=()
for list in "$ROOT"/examples/*/debian-packages.txt; do
  [ -f "$list" ] || continue
  read -r -a listed <<<"$(sed 's/#.*//' "$list" | tr '\n' ' ')"
  PLUGIN_PACKAGES+=("${listed[@]}")
done

PACKAGES=(
  bubblewrap                               # the local sandbox
  "${LANGUAGE_PACKAGES[@]}"                # every registered language's toolchain (sandboxes/languages/)
  "${PLUGIN_PACKAGES[@]}"                  # the example plug-ins' (examples/*/debian-packages.txt)
  git git-lfs                              # sources
  debootstrap                              # Docker base images without a registry
  chromium chromium-driver                 # the review page's browser test
  make time procps
  python3 python3-venv                     # the virtualenv's interpreter (Makefile SYSTEM_PYTHON)
)

missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-system: all ${#PACKAGES[@]} Debian packages present"
  exit 0
fi
echo "setup-system: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
