"""The backend 'relaybox': surge's bubblewrap sandbox, relayed under a name of its own.

A backend is one method: this one hands each batch to bwrap's backend and gives the results its own name,
so that the name reaches what the runs record (provenance, run ids) while every program still runs
behind bubblewrap and the seccomp filter.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pipeline.records import RunRequest, RunResult
from sandboxes.backends import bwrap
from sandboxes.backends.registry import BackendSpec

NAME = "relaybox"


class RelayBackend:
    def __init__(self, unsafe: bool, workers: int) -> None:
        self.bwrap = bwrap.BwrapBackend(unsafe=unsafe, workers=workers)

    def run_batch(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        for result in self.bwrap.run_batch(requests):
            provenance = result.provenance.model_copy(update={"backend": NAME})
            yield result.model_copy(update={"provenance": provenance})

    def close(self) -> None:
        self.bwrap.close()


def status() -> dict[str, object]:
    found = bwrap.bwrap_status()
    return {**found, "summary": f"bubblewrap relayed: {found.get('summary', '')}"}


SPEC = BackendSpec(
    name=NAME,
    open=RelayBackend,
    identity=lambda: bwrap.host_tools_identity,
    missing=bwrap.missing,
    fix=bwrap.INSTALL_HINT,
    status=status,
)
