"""The backend 'relaybox': surge's bubblewrap sandbox under a name of its own.

Only the launcher's name differs from bwrap's, so that the name reaches what the runs record
(provenance, run ids) while every program still runs behind bubblewrap and the seccomp filter.
"""

from __future__ import annotations

from sandboxes.backends import bwrap
from sandboxes.backends.registry import BackendSpec
from sandboxes.core import RunnerCore

NAME = "relaybox"


class RelayLauncher(bwrap.BwrapLauncher):
    def __init__(self, unsafe: bool) -> None:
        super().__init__(unsafe=unsafe)
        self.name = NAME


class RelayBackend(RunnerCore[RelayLauncher]):
    def __init__(self, unsafe: bool, workers: int) -> None:
        super().__init__(RelayLauncher(unsafe), workers)


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
