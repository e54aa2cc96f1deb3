"""Compiled artifacts reach the compile cache as files the runner writes to its export folder (a 4 MB
binary as base64 in the result line cost the host ~70 ms of a core to read and decode), never as bytes
a program could have changed: the host stores only what hashes to the name the runner gave it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from pipeline.records import Language, Program, Verdict
from sandboxes.compile_cache import CompileCache
from sandboxes.inner.protocol import Artifacts, RawRun
from tests.conftest import require_tool
from tests.sandboxes.conftest import request

C_PROGRAM = '#include <stdio.h>\nint main(void) { puts("exported"); return 0; }\n'


def compile_run() -> RawRun:
    return {
        "argv": ["cc"], "stdout": "", "stderr": "", "stdout_truncated": False, "stderr_truncated": False,
        "exit_code": 0, "signal": None, "cpu_user_s": 0.1, "cpu_sys_s": 0.0, "wall_s": 0.1,
        "max_rss_kib": 1, "status": "ok", "detail": "",
    }  # fmt: skip


def exported(folder: Path, data: bytes, named: str | None = None) -> Artifacts:
    sha256 = named or hashlib.sha256(data).hexdigest()
    (folder / sha256).write_bytes(data)
    files = [{"path": "main", "sha256": sha256, "size": len(data), "mode": 0o755, "exported": True}]
    return {"digest": "d" * 64, "files": files}  # type: ignore[typeddict-item]


def test_an_exported_file_is_stored_from_the_bytes_that_match_its_name(tmp_path: Path) -> None:
    cache, exports = CompileCache(tmp_path / "cache"), tmp_path / "exports"
    exports.mkdir()
    cache.put("k", compile_run(), exported(exports, b"\x7fELF binary"), exports)
    cached = cache.get("k")
    assert cached is not None and cached["artifacts"]["files"][0]["b64"] == "f0VMRiBiaW5hcnk="
    assert "exported" not in cached["artifacts"]["files"][0]
    assert list(exports.iterdir()) == []  # taken


def test_an_exported_file_whose_bytes_do_not_match_its_name_leaves_the_compile_uncached(
    tmp_path: Path,
) -> None:
    """What a program sharing the runner's uid could do: replace the file before the host reads it."""
    cache, exports = CompileCache(tmp_path / "cache"), tmp_path / "exports"
    exports.mkdir()
    named = hashlib.sha256(b"the compiler's binary").hexdigest()
    cache.put("k", compile_run(), exported(exports, b"a program's bytes", named=named), exports)
    assert cache.get("k") is None
    assert not (tmp_path / "cache" / "blobs").exists()


def test_an_export_that_never_arrived_leaves_the_compile_uncached(tmp_path: Path) -> None:
    cache = CompileCache(tmp_path / "cache")
    artifacts = exported(tmp_path, b"x")
    cache.put("k", compile_run(), artifacts, tmp_path / "elsewhere")
    assert cache.get("k") is None


def test_a_compile_through_bwrap_is_cached_from_its_export_and_hit_by_the_next_backend(
    require_bwrap: None, tmp_path: Path
) -> None:
    require_tool("gcc")
    from sandboxes.backends.bwrap import BwrapBackend

    program = Program.single(Language.C, C_PROGRAM)
    with BwrapBackend(cache_dir=tmp_path) as first:
        (compiled,) = first.run_batch([request(program)])
        folders = list((tmp_path / "exports").iterdir())
        assert folders and all(list(folder.iterdir()) == [] for folder in folders)  # every export taken
    blobs = list((tmp_path / "blobs").iterdir())
    assert [blob.name for blob in blobs] == [hashlib.sha256(blobs[0].read_bytes()).hexdigest()]
    with BwrapBackend(cache_dir=tmp_path) as second:
        (hit,) = second.run_batch([request(program)])
    assert compiled.verdict is hit.verdict is Verdict.OK
    assert hit.run is not None and hit.run.stdout == "exported\n"
    assert hit.compile is not None and "cache hit" in hit.compile.detail


def test_a_program_cannot_open_its_runners_export_folder(require_bwrap: None, tmp_path: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("needs root: only there do programs run under a uid of their own (without one, the host "
                    "checks every exported file's hash instead)")  # fmt: skip
    from sandboxes.backends.bwrap import EXPORT_MOUNT, BwrapBackend

    probe = f"import os\ntry:\n    os.listdir({EXPORT_MOUNT!r})\nexcept OSError as e:\n    print(e.errno)\n"
    probe += f"try:\n    open({EXPORT_MOUNT!r} + '/x', 'w')\nexcept OSError as e:\n    print(e.errno)\n"
    with BwrapBackend(cache_dir=tmp_path) as backend:
        (result,) = backend.run_batch([request(Program.single(Language.PYTHON, probe))])
    assert result.run is not None and result.run.stdout == "13\n13\n", result  # EACCES, both
