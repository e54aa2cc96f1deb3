#!/bin/sh
# Runs inside `docker build` for every image: installs the pinned Debian packages of the build argument
# PACKAGES (name=version; required, so a recipe built without build.sh stops here), any unpinned packages a
# build stage names as arguments, the runner's python3, the aliases in $ALIASES (name=target), and the
# unprivileged user programs run as.
# Shared by all families so that hardening and layout are identical in every image.
set -eu

[ -n "${PACKAGES:-}" ] || { echo "build-arg PACKAGES is required: build with dockerfiles/build.sh" >&2; exit 1; }

RUNNER_UID=10001  # fixed, so the backend can pass it as --user without looking it up

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# The debootstrap base and debian:*-slim ship no man directories; openjdk's postinst links into man1.
mkdir -p /usr/share/man/man1
# Pinned top-level packages; their dependencies follow from the suite (listed in the manifest below).
apt-get install -y -qq --no-install-recommends python3-minimal $PACKAGES "$@"
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /usr/share/doc/* /usr/share/man/* /usr/share/info/*

# The whole package set, so an image can be audited without apt (the pinned top level is in its labels).
mkdir -p /usr/local/share/surge
dpkg-query -W -f '${Package}=${Version}\n' >/usr/local/share/surge/packages.txt

# Unversioned names the pins file asks for (e.g. clang++ -> clang++-16 where no `clang` package fits).
for alias in ${ALIASES:-}; do
  ln -sf "/usr/bin/${alias#*=}" "/usr/local/bin/${alias%%=*}"
done

# Programs never run as root: a fixed uid with no password and no sudo.
groupadd --gid "$RUNNER_UID" runner
useradd --uid "$RUNNER_UID" --gid "$RUNNER_UID" --no-create-home --home-dir /app --shell /bin/sh runner
mkdir -p /app /usr/local/lib/surge
chown runner:runner /app
