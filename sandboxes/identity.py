"""Toolchain identity for run ids: which compiler or image a request will actually use, so that a
run made with another one never answers for it.

A run id must change when the result can change: a new g++ on the host, another Docker image behind the
same tag. Planning asks here once per (backend, language, setting, profile) and writes the answer into
``RunRequest.toolchain_id``. How a backend reads its toolchain is its spec's (``BackendSpec.identity``:
the host's tool versions for bwrap, the image id for Docker); a language with a checker (Lean's proofs)
is identified by its checker, on any backend.
"""

from __future__ import annotations

from collections.abc import Iterable

from pipeline.records import RunRequest
from sandboxes.backends.registry import Identity, backend_for, spec_for
from sandboxes.languages import spec_for as language_spec


def identify(requests: Iterable[RunRequest], chosen: str, unsafe: bool = False) -> list[RunRequest]:
    """The requests with ``backend`` and ``toolchain_id`` filled in: their run ids then say how they run."""
    probes: dict[str, Identity] = {}
    known: dict[tuple[str, str, str, str], str] = {}
    identified = []
    for request in requests:
        backend = backend_for(request.profile, chosen, unsafe)
        key = (
            backend,
            request.program.language.value,
            request.setting.setting_id,
            request.profile.profile_id,
        )
        checker = language_spec(request.program.language).checker
        if key not in known and checker is not None:
            known[key] = checker.identity()
        if key not in known:
            if backend not in probes:
                probes[backend] = spec_for(backend).identity()
            known[key] = probes[backend](request)
        identified.append(request.model_copy(update={"backend": backend, "toolchain_id": known[key]}))
    return identified
