#!/usr/bin/env bash
# Installs the Debian packages surge-pipeline needs: the sandbox, the toolchains the tests run,
# and the tools behind `make images` and the review-page browser test. Idempotent; root or sudo.
set -euo pipefail

PACKAGES=(
  bubblewrap                               # the local sandbox
  gcc g++ clang clang-14 clang-19          # C / C++ (clang 19 prints the line gutters SURGE's dr labels show)
  default-jdk-headless                     # Java
  mono-mcs mono-runtime                    # C#
  rustc                                    # Rust (Debian's, so the sandbox never needs the host's ~/.rustup)
  python3 python3-numpy python3-scipy      # Python, with the numpy the sc/tc scripts import
  nodejs                                   # JavaScript
  git git-lfs                              # sources
  debootstrap                              # Docker base images without a registry
  chromium chromium-driver                 # the review page's browser test
  make time procps
)

missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-system: all ${#PACKAGES[@]} Debian packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup-system: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
