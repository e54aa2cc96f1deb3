"""What is recorded: labels, compile errors, determinism, cache hits, shared binaries, profiles."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.errors import ConfigurationError, SandboxUnavailable
from pipeline.records import ExecutionSetting, Program, Verdict
from sandboxes.profiles import get_profile
from tests.sandboxes.conftest import request, run_one

UNDECLARED = "int main() { return x; }\n"


def test_compile_error_label_has_surge_prefix_and_ascii_quotes_under_surge_bg(backend: object) -> None:
    program = Program.single("cpp", UNDECLARED, protocol="combined_with_prefix")
    result = run_one(backend, program, profile="surge-bg")
    assert result.verdict is Verdict.COMPILE_ERROR and result.run is None
    assert result.label.startswith("Compilation Error: /app/test.cpp: In function 'int main()':")
    assert "-std=c++11" in result.compile.command


def test_gcc_quotes_follow_the_profile_locale(backend: object) -> None:
    program = Program.single("cpp", UNDECLARED, protocol="combined_with_prefix")
    utf8 = run_one(backend, program, profile="default")
    assert "\u2018int main()\u2019" in utf8.compile.stderr
    ascii_ = run_one(backend, program, profile="surge-bg")
    assert "'int main()'" in ascii_.compile.stderr


def test_runtime_signal_is_a_fact_not_label_text(backend: object) -> None:
    source = "#include <cstdio>\n" + (
        'int main(){ std::puts("before"); std::fflush(stdout); int *p = nullptr; return *p; }\n'
    )
    result = run_one(backend, Program.single("cpp", source, protocol="compile_then_run"))
    assert result.verdict is Verdict.SIGNAL and result.run.signal == "SIGSEGV"
    assert result.label == "before\n"


def test_a_dr_label_ends_with_what_the_run_wrote_on_stderr(backend: object) -> None:
    """Three of SURGE's dr labels end with libstdc++'s terminate message: a noexcept function that throws
    aborts the run, which writes it on stderr after its stdout (and the signal adds no text)."""
    source = (
        "#include <cstdio>\nvoid boom() noexcept { throw 1; }\n"
        'int main(){ std::puts("before"); std::fflush(stdout); boom(); }\n'
    )
    result = run_one(backend, Program.single("cpp", source, protocol="compile_then_run"))
    assert result.verdict is Verdict.SIGNAL and result.run.signal == "SIGABRT"
    # gcc's -Wterminate warning first (the compile phase), then the run's stdout, then its stderr
    assert result.label.startswith(result.compile.stderr) and "will always call" in result.compile.stderr
    ending = "before\nterminate called after throwing an instance of 'int'\n"
    assert result.label.endswith(ending), result.label


def test_determinism_flag(backend: object) -> None:
    stable = run_one(backend, Program.single("python", "print(sum(range(10)))"), repeats=3)
    assert stable.repeats == 3 and stable.distinct_outputs == 1 and stable.deterministic
    changing = run_one(backend, Program.single("python", "import os; print(os.urandom(8).hex())"), repeats=3)
    assert changing.repeats == 3 and changing.distinct_outputs == 3 and not changing.deterministic


def test_compile_cache_hit_and_identical_binaries_run_once(tmp_path: Path, backend: object) -> None:
    from sandboxes.backends.bwrap import BwrapBackend

    source = '#include <cstdio>\nint main(){ std::puts("same"); return 0; }\n'
    program = Program.single("cpp", source, protocol="compile_then_run")
    settings = [
        ExecutionSetting.from_surge_key(k) for k in ("g++-C++11--O0", "g++-C++14--O0", "g++-C++11--O2")
    ]
    with BwrapBackend(cache_dir=tmp_path) as first:
        results = list(first.run_batch([request(program, setting=s) for s in settings]))
    assert [r.verdict for r in results] == [Verdict.OK] * 3
    assert "shared run of identical binary" in results[1].run.detail  # -std changes nothing in this binary
    assert all(r.label == "same\n" for r in results)
    with BwrapBackend(cache_dir=tmp_path) as second:
        again = next(iter(second.run_batch([request(program, setting=settings[2])])))
    assert "compile cache hit" in again.compile.detail
    assert again.label == "same\n" and again.run.verdict is Verdict.OK


# Run, it replaces its own binary with garbage: the compile cache must keep what the compiler made.
SELF_REPLACING = """#include <stdio.h>
#include <unistd.h>
int main(void) {
  unlink("test");
  FILE *f = fopen("test", "w");
  if (f) { fputs("not a binary", f); fclose(f); }
  puts("replaced");
  return 0;
}
"""


def test_what_a_program_does_to_its_binary_never_reaches_the_compile_cache(
    tmp_path: Path, backend: object
) -> None:
    from sandboxes.backends.bwrap import BwrapBackend

    program = Program.single("c", SELF_REPLACING)
    with BwrapBackend(cache_dir=tmp_path) as first:  # compiled and run in one job
        compiled = next(iter(first.run_batch([request(program)])))
    assert compiled.compile.detail == "compiled" and compiled.label == "replaced\n"
    with BwrapBackend(cache_dir=tmp_path) as second:
        again = next(iter(second.run_batch([request(program)])))
    assert "compile cache hit" in again.compile.detail
    assert again.verdict is Verdict.OK and again.label == "replaced\n", again.run


# 160,000 distinct template instantiations: about 6 s of g++ here, far beyond a 1 s compile limit.
SLOW_TO_COMPILE = """#include <cstdio>
template <int A, int B> struct P { static const long v = (P<A - 1, B>::v + P<A, B - 1>::v) % 1000003; };
template <int B> struct P<0, B> { static const long v = 1; };
template <int A> struct P<A, 0> { static const long v = 1; };
int main() { std::printf("%ld\\n", P<400, 400>::v); }
"""


def test_a_compile_that_ends_on_a_limit_is_not_a_compile_error_and_not_cached(
    tmp_path: Path, backend: object
) -> None:
    from pipeline.records import Limits, PhaseLimits
    from sandboxes.backends.bwrap import BwrapBackend

    program = Program.single("cpp", SLOW_TO_COMPILE, protocol="compile_then_run")
    tight = Limits(compile=PhaseLimits(cpu_s=1.0, wall_s=2.0), run=PhaseLimits())
    with BwrapBackend(cache_dir=tmp_path) as first:
        starved = next(iter(first.run_batch([request(program, limits=tight)])))
    assert starved.verdict in (Verdict.CPU_TIME_LIMIT, Verdict.WALL_TIME_LIMIT), starved.compile
    assert not list((tmp_path / "entries").glob("*.json"))  # nothing cached for next time
    with BwrapBackend(cache_dir=tmp_path) as second:
        fed = next(iter(second.run_batch([request(program, limits=Limits())])))
    assert fed.verdict is Verdict.OK and fed.label == "532632\n"
    assert "compile cache hit" not in fed.compile.detail


def test_an_unsafe_compile_is_never_served_to_a_bwrap_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: object
) -> None:
    import shutil

    import sandboxes.backends.bwrap as bwrap_module

    program = Program.single("c", "int main(void) { return x; }\n", protocol="compile_then_run")
    real_which = shutil.which
    with monkeypatch.context() as patch:
        patch.setattr(
            bwrap_module.shutil,
            "which",
            lambda tool, **kw: None if tool == "bwrap" else real_which(tool, **kw),
        )
        with bwrap_module.BwrapBackend(unsafe=True, cache_dir=tmp_path) as unsafe:
            assert unsafe.name == "unsafe-local"
            local = next(iter(unsafe.run_batch([request(program)])))
    assert local.verdict is Verdict.COMPILE_ERROR and "surge-unsafe-" in local.compile.stderr
    with bwrap_module.BwrapBackend(cache_dir=tmp_path) as sandboxed:
        boxed = next(iter(sandboxed.run_batch([request(program)])))
    assert "compile cache hit" not in boxed.compile.detail
    assert "/app/test.c" in boxed.compile.stderr and "surge-unsafe-" not in boxed.compile.stderr


def test_unknown_profile_lists_the_names() -> None:
    with pytest.raises(ConfigurationError) as error:
        get_profile("nope")
    assert "surge-bg" in error.value.hint


def test_without_bwrap_the_backend_refuses_unless_unsafe(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandboxes import open_backend

    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(SandboxUnavailable) as error:
        open_backend("bwrap")
    assert "apt-get install bubblewrap" in error.value.hint
    with open_backend("bwrap", unsafe=True) as unsafe:
        result = next(iter(unsafe.run_batch([request(Program.single("python", "print(7 * 6)"))])))
    assert result.provenance.backend == "unsafe-local"
    assert result.verdict is Verdict.OK and result.label == "42\n"


def test_surge_dr_profile_maps_clang_to_clang_19() -> None:
    from sandboxes.languages import spec_for

    setting = ExecutionSetting.from_surge_key("clang++-C++11--O1")
    cpp = spec_for("cpp")
    program = Program.single("cpp", UNDECLARED)
    assert cpp.compile_argv(program, setting, get_profile("surge-dr"))[:3] == [
        "clang++-19",
        "-std=c++11",
        "-O1",
    ]
    assert cpp.compile_argv(program, setting, get_profile("default"))[0] == "clang++"


def test_dr_settings_compile_under_relative_names_as_the_dr_labels_quote_them(backend: object) -> None:
    program = Program.single("cpp", UNDECLARED, protocol="compile_then_run")
    dr = run_one(backend, program, setting=ExecutionSetting.from_surge_key("g++-C++11--O0"))
    assert dr.label.startswith("test.cpp: In function"), dr.label
    bg = run_one(backend, program, setting=ExecutionSetting(compiler="g++", standard="c++11"))
    assert bg.label.startswith("/app/test.cpp: In function"), bg.label


def test_image_bound_profiles_are_refused_outside_docker() -> None:
    from sandboxes.profiles import check_backend

    check_backend([get_profile("surge-repro")], "docker")
    check_backend([get_profile("default"), get_profile("surge-bg")], "bwrap")
    with pytest.raises(ConfigurationError, match="surge-repro") as error:
        check_backend([get_profile("default"), get_profile("surge-repro")], "bwrap")
    assert "--backend docker" in error.value.hint


def test_docker_profiles_name_their_images_with_per_family_suites() -> None:
    from sandboxes.backends.docker import image_for

    current, repro = get_profile("current"), get_profile("surge-repro")
    assert image_for("cpp", current) == "surge/cpp:bookworm"
    assert image_for("cpp", repro) == "surge/cpp:bullseye"
    assert image_for("julia", current) == "surge/julia:bullseye"  # Debian 12 has no Julia package
    assert repro.locale == "C"
    # surge-focal has its own C/C++ image; every other family runs bullseye's
    focal = get_profile("surge-focal")
    assert (image_for("cpp", focal), image_for("c", focal)) == ("surge/cpp:focal", "surge/cpp:focal")
    assert image_for("python", focal) == "surge/python:bullseye"
