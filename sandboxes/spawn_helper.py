"""The runner's spawn helper (sandboxes/inner/become.c), built from source once per C compiler.

Every runner starts through this helper (``become --wall``), which puts up the second wall (a seccomp
filter) that the runner and all it starts then inherit, and hands each program start to it
(``runner.py --spawn-helper``): it sets the limits, switches to the sandbox uid and execs the program; a
vfork and two execs instead of the fork CPython makes when Popen switches user, ~1.5 ms less CPU per
program. It is built with the host's C compiler into the compile cache's folder, named by the hash of
its source and the compiler's version, so an edit or a new compiler builds it again. It links no C
library (become.c says why), so it needs only gcc and the kernel's headers, and it is static: Docker
mounts the same file into its containers (`is_static`). Without a compiler, or where it does not build,
this answers None and the sandboxes refuse untrusted code (only --unsafe runs on).
"""

from __future__ import annotations

import functools
import hashlib
import os
import struct
import subprocess
import tempfile
from pathlib import Path

from sandboxes.core import RUNNER_DIR
from sandboxes.toolchains import find_tool, tool_version

SOURCE = RUNNER_DIR / "become.c"
COMPILER = "gcc"
# Static and freestanding: it runs in any sandbox of this architecture, whatever its C library, and starts
# without one (no stack protector: its canary lives in the C library's thread-local storage).
BUILD_FLAGS = (
    ("-Os", "-static", "-nostdlib", "-ffreestanding", "-fno-stack-protector", "-fno-pie", "-no-pie"),
)
BUILD_TIMEOUT_S = 60


def spawn_helper(cache_root: Path) -> Path | None:
    """The helper's path under ``cache_root`` (built now if missing), or None when it cannot be built.
    Once per process and folder (built again if someone removed it since, e.g. a cleared cache); two
    threads that race both build the same bytes, harmlessly."""
    folder = (cache_root / "spawn-helper").resolve()
    helper = built_once(folder)
    if helper is not None and not helper.is_file():
        built_once.cache_clear()
        helper = built_once(folder)
    return helper


@functools.cache
def built_once(folder: Path) -> Path | None:
    return build(folder)


def build(folder: Path) -> Path | None:
    compiler = find_tool(COMPILER)
    if compiler is None:
        return None
    source = SOURCE.read_bytes()
    identity = hashlib.sha256(source + (tool_version(COMPILER) or "").encode()).hexdigest()[:16]
    target = folder / f"become-{identity}"
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    for flags in BUILD_FLAGS:
        with tempfile.TemporaryDirectory(dir=folder) as scratch:
            built = Path(scratch) / "become"
            try:
                done = subprocess.run(
                    [compiler, *flags, "-o", str(built), str(SOURCE)],
                    capture_output=True,
                    timeout=BUILD_TIMEOUT_S,
                )
            except (OSError, subprocess.TimeoutExpired):
                return None
            if done.returncode == 0:
                os.chmod(built, 0o755)
                os.replace(built, target)  # atomic: a concurrent builder's copy is the same bytes
                return target
    return None


def wall_problem(cache_root: Path) -> str:
    """Why programs cannot start here behind the seccomp filter ('' when they can), for `surge doctor`."""
    helper = spawn_helper(cache_root)
    if helper is None:
        return "the spawn helper (sandboxes/inner/become.c) does not build: apt-get install gcc libc6-dev"
    try:
        check = subprocess.run(
            [str(helper), "--check"], capture_output=True, text=True, timeout=BUILD_TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"the spawn helper does not run: {error}"
    return "" if check.returncode == 0 else f"the seccomp filter does not hold here: {check.stderr.strip()}"


ELF_PT_INTERP = 3  # a program header naming the dynamic loader: absent from a static executable


def is_static(path: Path) -> bool:
    """Does this 64-bit little-endian ELF executable run without a dynamic loader (in any image)?"""
    data = path.read_bytes()
    if data[:6] != b"\x7fELF\x02\x01":
        return False
    (header_offset,) = struct.unpack_from("<Q", data, 0x20)
    header_size, header_count = struct.unpack_from("<HH", data, 0x36)
    types = (struct.unpack_from("<I", data, header_offset + n * header_size)[0] for n in range(header_count))
    return ELF_PT_INTERP not in types
