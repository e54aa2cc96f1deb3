#!/usr/bin/env bash
# `make images`: build the surge/<family>:<suite> images with no registry, incrementally.
#
#   bash dockerfiles/build.sh                      every family, every profile (bookworm, bullseye, focal),
#                                                  and trixie for what only it packages (Swift)
#   bash dockerfiles/build.sh --minimal            cpp + python only (what the docker tests need)
#   bash dockerfiles/build.sh --suites bookworm cpp
#   bash dockerfiles/build.sh --from-registry      FROM debian:<suite>-slim instead of the debootstrap base
#   bash dockerfiles/build.sh --refresh-pins bookworm   re-resolve pinned versions from the archive
#   bash dockerfiles/build.sh --suites focal cpp   the older toolchain of SURGE's dr labels
#
# Profiles: "current" = bookworm, "surge-repro" = bullseye, "surge-focal" = focal (sandboxes/backends/docker.py
# maps them). "focal" is no Debian suite: bullseye's base and packages with bookworm's clang-19 beside them
# (<family>/Dockerfile.focal, from surge/<family>:bookworm, built first).
# An image whose inputs (Dockerfile, common/, pinned packages, base and donor image ids) hash to the value in its
# org.surge.inputs-hash label is skipped. Package installs reach Debian's archive through host networking.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Every registered language's family (its spec's `image_family`), read without the virtualenv.
all_families="$(python3 "$HERE/../sandboxes/languages/manifest.py" families)"  # an assignment, so `set -e` stops on a failure
read -r -a ALL_FAMILIES <<<"$all_families"
MINIMAL_FAMILIES=(cpp python)
export DOCKER_BUILDKIT=0  # the classic builder: uses local base images, never asks a registry

suites=(bookworm bullseye focal trixie)  # focal after bookworm: its clang comes from surge/cpp:bookworm
families=()
from_registry=0
refresh=0

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --minimal) families=("${MINIMAL_FAMILIES[@]}") ;;
    --from-registry) from_registry=1 ;;
    --refresh-pins) refresh=1 ;;
    --suites) suites=(); while [ $# -gt 1 ] && [[ "$2" =~ ^(bookworm|bullseye|trixie|focal)$ ]]; do suites+=("$2"); shift; done ;;
    bookworm|bullseye|trixie|focal) suites=("$1") ;;
    -h|--help) usage 0 ;;
    -*) echo "build.sh: unknown option $1" >&2; usage 2 ;;
    *) families+=("$1") ;;
  esac
  shift
done
[ ${#families[@]} -gt 0 ] || families=("${ALL_FAMILIES[@]}")

require_docker() {
  command -v docker >/dev/null || { echo "build.sh: docker is not installed (apt-get install docker.io)" >&2; exit 1; }
  docker info >/dev/null 2>&1 || { echo "build.sh: the Docker engine is not running (systemctl start docker)" >&2; exit 1; }
}

pins_line() {  # the "<family>: ..." line of a suite's pins file, without the family
  sed -n "s/^$2:[[:space:]]*//p" "$HERE/pins/$1.txt"
}

debian_suite() {  # the Debian suite a suite's images start from
  case "$1" in focal) echo bullseye ;; *) echo "$1" ;; esac
}

base_image() {
  local debian; debian="$(debian_suite "$1")"
  if [ "$from_registry" -eq 1 ]; then echo "debian:$debian-slim"; else echo "surge/base:$debian"; fi
}

ensure_base() {
  local debian; debian="$(debian_suite "$1")"
  if [ "$from_registry" -eq 1 ]; then docker pull -q "debian:$debian-slim" >/dev/null; else bash "$HERE/base/build-base.sh" "$debian"; fi
}

dockerfile_of() {  # <family>/Dockerfile.<suite> where a suite needs its own recipe; language/ where none
  if [ -f "$HERE/$2/Dockerfile.$1" ]; then echo "$HERE/$2/Dockerfile.$1"
  elif [ -f "$HERE/$2/Dockerfile" ]; then echo "$HERE/$2/Dockerfile"
  else echo "$HERE/language/Dockerfile"; fi
}

known_family() {  # a registered language's family, or one with a recipe of its own (dask)
  [ -f "$HERE/$1/Dockerfile" ] || [[ " ${ALL_FAMILIES[*]} " == *" $1 "* ]]
}

donor_image() {  # focal's clang comes from the bookworm image of the same family
  case "$1" in focal) echo "surge/$2:bookworm" ;; *) echo "" ;; esac
}

copied_inputs() {  # what a recipe COPYs from the context besides common/ (Julia's workload), named and hashed
  local sources
  sources="$(awk '$1 == "COPY" && $2 !~ /^--/ { for (i = 2; i < NF; i++) if ($i !~ /^common\//) print $i }' "$1")"
  [ -z "$sources" ] || (cd "$HERE" && find $sources -type f | LC_ALL=C sort | xargs sha256sum)
}

label_of() {
  docker image inspect --format "{{ index .Config.Labels \"$2\" }}" "$1" 2>/dev/null || true
}

needs_network() {  # lean4 downloads elan and its toolchain from GitHub
  [ "$1" = lean4 ] || return 1
  curl -sfI -m 10 https://github.com >/dev/null 2>&1 && return 1
  return 0
}

build_image() {
  local suite="$1" family="$2" line packages aliases base tag hash dockerfile_hash started dockerfile donor tools
  tag="surge/$family:$suite"
  line="$(pins_line "$suite" "$family")"
  if [ -z "$line" ]; then
    echo "skip  $tag: no packages pinned for it in dockerfiles/pins/$suite.txt (Debian has none, or the profile uses another suite's image)"
    return
  fi
  if needs_network "$family"; then
    echo "skip  $tag: github.com is unreachable here (elan and the Lean toolchain download from it);"
    echo "      build it where a network exists: bash dockerfiles/build.sh $suite lean4"
    return
  fi
  packages="${line%%|*}"; packages="$(echo $packages)"
  aliases=""; [[ "$line" == *"|"* ]] && aliases="$(echo ${line#*|})"
  base="$(base_image "$suite")"
  dockerfile="$(dockerfile_of "$suite" "$family")"
  donor="$(donor_image "$suite" "$family")"
  [ -z "$donor" ] || build_image bookworm "$family"
  tools=""  # the shared recipe checks the family's tools are in the image
  [ "$dockerfile" != "$HERE/language/Dockerfile" ] || tools="$(python3 "$HERE/../sandboxes/languages/manifest.py" tools "$family")"
  dockerfile_hash="$(sha256sum "$dockerfile" | cut -c1-16)"
  hash="$( { cat "$dockerfile" "$HERE/common/install-packages.sh"; copied_inputs "$dockerfile";
             echo "$family|$tools|$packages|$aliases";
             docker image inspect --format '{{.Id}}' "$base" ${donor:+"$donor"}; } | sha256sum | cut -c1-16)"
  if [ "$(label_of "$tag" org.surge.inputs-hash)" = "$hash" ]; then
    echo "ok    $tag is up to date ($hash)"
    return
  fi
  started=$SECONDS
  echo "build $tag from $base"
  docker build --network host --quiet --force-rm \
    --build-arg "BASE_IMAGE=$base" --build-arg "FAMILY=$family" --build-arg "PACKAGES=$packages" \
    --build-arg "ALIASES=$aliases" ${tools:+--build-arg "TOOLS=$tools"} \
    ${donor:+--build-arg "CLANG_IMAGE=$donor"} \
    --label "org.surge.inputs-hash=$hash" --label "org.surge.dockerfile-sha256=$dockerfile_hash" \
    --label "org.surge.debian-suite=$(debian_suite "$suite")" --label "org.surge.suite=$suite" \
    -t "$tag" -f "$dockerfile" "$HERE" >"$HERE/.build-$family-$suite.log" 2>&1 \
    || { tail -30 "$HERE/.build-$family-$suite.log" >&2; echo "build.sh: $tag failed" >&2; exit 1; }
  rm -f "$HERE/.build-$family-$suite.log"
  echo "built $tag in $((SECONDS - started)) s"
}

refresh_pins() {  # rewrite name[=version] with the suite's current candidate versions
  local suite="$1" file="$HERE/pins/$1.txt" names resolved
  names="$(grep -E '^[a-z0-9]+:' "$file" | sed 's/^[^:]*://; s/|.*//' | tr ' ' '\n' | sed 's/=.*//' | sort -u | xargs)"
  resolved="$(docker run --rm --network host "$(base_image "$suite")" sh -c \
    "apt-get update -qq >/dev/null && for p in $names; do
       printf '%s=%s\n' \"\$p\" \"\$(apt-cache policy \"\$p\" | sed -n 's/^  Candidate: //p')\"; done")"
  local tmp; tmp="$(mktemp)"
  while IFS= read -r row; do
    if [[ "$row" =~ ^([a-z0-9]+):(.*)$ ]]; then
      local family="${BASH_REMATCH[1]}" rest="${BASH_REMATCH[2]}" tail="" out=""
      [[ "$rest" == *"|"* ]] && tail=" |${rest#*|}"
      for pkg in ${rest%%|*}; do
        local name="${pkg%%=*}" version
        version="$(echo "$resolved" | awk -v n="$name" 'index($0, n "=") == 1 { print substr($0, length(n) + 2) }')"
        [ -n "$version" ] && [ "$version" != "(none)" ] || { echo "refresh: $name not in $suite" >&2; exit 1; }
        out+=" $name=$version"
      done
      echo "$family:$out$tail"
    else
      echo "$row"
    fi
  done <"$file" >"$tmp"
  mv "$tmp" "$file"
  echo "refreshed $file"
}

require_docker
# One build.sh at a time on this machine (images are the engine's, not a checkout's): the prune at the end
# removes untagged images of ours, and another build's multi-stage intermediate (focal's clang stage)
# is one of those until that build has finished with it.
exec 9>"${TMPDIR:-/tmp}/surge-image-build.lock"
flock 9
for suite in "${suites[@]}"; do
  [ -f "$HERE/pins/$suite.txt" ] || { echo "build.sh: no pins for $suite (dockerfiles/pins/$suite.txt)" >&2; exit 2; }
  if [ "$refresh" -eq 1 ]; then ensure_base "$suite"; refresh_pins "$suite"; continue; fi
  # A suite's base only where one of the families asked for has an image there (trixie has Swift's alone).
  pinned=0
  for family in "${families[@]}"; do
    known_family "$family" || { echo "build.sh: unknown family $family" >&2; exit 2; }
    [ -z "$(pins_line "$suite" "$family")" ] || pinned=1
  done
  [ "$pinned" -eq 0 ] || ensure_base "$suite"
  for family in "${families[@]}"; do
    build_image "$suite" "$family"
  done
done
# Rebuilt images leave their predecessors untagged: drop those (only ours, by label), never tagged ones.
[ "$refresh" -eq 1 ] || docker image prune -f --filter "label=org.surge.inputs-hash" >/dev/null
