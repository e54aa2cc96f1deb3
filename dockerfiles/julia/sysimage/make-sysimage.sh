#!/usr/bin/env bash
# Runs in the build stage of dockerfiles/julia/Dockerfile: writes a Julia 1.5.3 system image that holds, as
# native code, what a CRUXEval-X `using Test` program otherwise compiles at every start (@testset and @test,
# the report of a failed test, common String, Vector and Dict methods), then checks that every workload
# program prints the same and exits the same under the new image as under Debian's.
#
#   bash make-sysimage.sh WORKLOAD_DIR OUT_SYS_SO
#
# Debian has no PackageCompiler, so this is its recipe by hand, as Julia's own build does it
# (contrib/generate_precompile.jl): run the workload with --trace-compile to learn which methods it
# compiles, replay those `precompile` statements in a julia that writes an image (--output-o), and link
# the object as Julia's Makefile links sys.so.
set -euo pipefail

WORKLOAD="$1"
OUT="$2"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(mktemp -d)"
DEBIAN_IMAGE="$(julia --startup-file=no -e 'print(unsafe_string(Base.JLOptions().image_file))')"
LIBDIR="$(julia --startup-file=no -e 'print(abspath(Sys.BINDIR, Base.LIBDIR))')"
# Debian's sys.so carries these three (its jl_dispatch_target_ids): the same list keeps the image loading
# on any x86-64 and picking, on each host, the clone Debian's image picks (haswell's has FMA in muladd).
CPU_TARGET='generic;sandybridge,-xsaveopt,clone_all;haswell,-rdrnd,base(1)'

trace_workload() {  # each program on pipes, as the sandbox runs it, and on files: a stream type each
  mkdir -p "$WORK/trace"
  for program in "$WORKLOAD"/*.jl; do
    local name; name="$(basename "$program" .jl)"
    # the failing programs exit 1 here: their status is compared below
    : | julia --startup-file=no --trace-compile="$WORK/trace/$name.pipes" "$program" 2>&1 | cat >/dev/null || true
    julia --startup-file=no --trace-compile="$WORK/trace/$name.files" "$program" </dev/null >/dev/null 2>&1 || true
  done
}

image_data_without_code() {  # Debian's image as a .ji: a julia that loads a .so compiles for its first target only
  # The bytes of jl_system_image_data, read from the file: a running julia relocates them in place.
  local address size data_address data_offset
  read -r address size <<<"$(nm -D -S "$DEBIAN_IMAGE" | awk '$4 == "jl_system_image_data" { print $1, $2 }')"
  read -r data_address data_offset <<<"$(readelf -S -W "$DEBIAN_IMAGE" | awk '$2 == ".data" { print $4, $5 }')"
  dd if="$DEBIAN_IMAGE" of="$WORK/sys.ji" bs=4M iflag=skip_bytes,count_bytes status=none \
    skip=$((0x$address - 0x$data_address + 0x$data_offset)) count=$((0x$size))
}

write_image() {
  mkdir -p "$(dirname "$OUT")"
  julia --startup-file=no --cpu-target="$CPU_TARGET" --output-o "$WORK/sys.o" -J "$WORK/sys.ji" \
    "$HERE/precompile.jl" "$WORK/trace"
  # -lm, as Julia's Makefile links (it uses g++): pow and powf then name their glibc versions (pow@GLIBC_2.29)
  # as in Debian's image; left unversioned, the loader may bind an older compatibility version.
  gcc -shared -o "$OUT" -Wl,--whole-archive "$WORK/sys.o" -Wl,--no-whole-archive \
    -L"$LIBDIR" -l:libjulia.so.1 -lm
  chmod 644 "$OUT"
}

run_with_files() {  # PROGRAM PREFIX [JULIA OPTIONS]: its stdout, stderr and exit status in PREFIX.*
  local program="$1" prefix="$2" status=0
  shift 2
  julia --startup-file=no "$@" "$program" </dev/null >"$prefix.out" 2>"$prefix.err" || status=$?
  echo "$status" >"$prefix.status"
}

check_same_behaviour() {  # on this host's clone, and on the generic one that every x86-64 can run
  for cpu in native generic; do
    mkdir -p "$WORK/$cpu"
    for program in "$WORKLOAD"/*.jl; do
      local name; name="$(basename "$program" .jl)"
      run_with_files "$program" "$WORK/$cpu/$name.debian" -C "$cpu"
      run_with_files "$program" "$WORK/$cpu/$name.ours" -C "$cpu" -J "$OUT"
      for stream in out err status; do
        diff -u "$WORK/$cpu/$name.debian.$stream" "$WORK/$cpu/$name.ours.$stream" \
          || { echo "make-sysimage: $name.jl's $stream differs under the new image (-C $cpu)" >&2; exit 1; }
      done
      echo "$name.jl (-C $cpu): exit status $(cat "$WORK/$cpu/$name.ours.status") under both images, the same output"
    done
  done
}

trace_workload
image_data_without_code
write_image
check_same_behaviour
rm -rf "$WORK"
