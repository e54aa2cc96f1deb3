#!/usr/bin/env bash
# Builds surge/base:<suite> without any registry: debootstrap a minimal Debian root filesystem from
# Debian's archive and `docker import` it. Incremental: skipped when an image built from the same
# script, suite and mirror already exists (the inputs' hash is stored as a label).
#
#   bash dockerfiles/base/build-base.sh bookworm [bullseye ...]
#
# Needs root (debootstrap), debootstrap, and HTTP access to $DEBIAN_MIRROR.
set -euo pipefail

MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK_ROOT="${SURGE_BASE_WORKDIR:-/var/tmp/surge-base}"

inputs_hash() {  # what determines the base image: this script, the suite and the mirror
  { cat "$HERE/build-base.sh"; echo "$1 $MIRROR"; } | sha256sum | cut -c1-16
}

built_hash() {
  docker image inspect --format '{{ index .Config.Labels "org.surge.inputs-hash" }}' "$1" 2>/dev/null || true
}

build_suite() {
  local suite="$1" tag="surge/base:$1" hash
  # One build of a suite at a time: a second `make images` (or a test building its image) waits here,
  # then finds the image built, instead of wiping the debootstrap root under the first.
  exec 9>"$WORK_ROOT/$suite.lock"
  flock 9
  hash="$(inputs_hash "$suite")"
  if [ "$(built_hash "$tag")" = "$hash" ]; then
    echo "base: $tag is up to date ($hash)"
    return
  fi
  command -v debootstrap >/dev/null || { echo "base: needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }
  [ "$(id -u)" -eq 0 ] || { echo "base: debootstrap needs root" >&2; exit 1; }
  local root="$WORK_ROOT/$suite"
  rm -rf "$root" && mkdir -p "$root"
  echo "base: debootstrap $suite from $MIRROR (a few minutes)"
  # minbase: dpkg, apt and essentials only; python3 is what the in-container runner needs.
  debootstrap --variant=minbase --include=python3,ca-certificates "$suite" "$root" "$MIRROR" \
    >"$WORK_ROOT/$suite.log" 2>&1 || { tail -20 "$WORK_ROOT/$suite.log" >&2; exit 1; }
  # Keep the image small and its apt sources explicit (the -updates suite carries point fixes).
  echo "deb $MIRROR $suite main" >"$root/etc/apt/sources.list"
  echo "deb $MIRROR $suite-updates main" >>"$root/etc/apt/sources.list"
  chroot "$root" apt-get clean
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc/* "$root"/usr/share/man/*
  local debian_version
  debian_version="$(cat "$root/etc/debian_version")"
  tar --numeric-owner -C "$root" -c . | docker import \
    --change "LABEL org.surge.inputs-hash=$hash org.surge.debian-suite=$suite org.surge.debian-version=$debian_version" \
    --change 'ENV LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/bin/bash"]' \
    - "$tag" >/dev/null
  rm -rf "$root"
  echo "base: built $tag (Debian $debian_version)"
  exec 9>&-
}

[ $# -gt 0 ] || set -- bookworm
mkdir -p "$WORK_ROOT"
for suite in "$@"; do build_suite "$suite"; done
