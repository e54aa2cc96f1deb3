"""A Dask preload for the scheduler and every worker: `dask scheduler --preload flows.dask_preload`,
`dask worker ADDRESS --preload flows.dask_preload`.

A worker imports what a batch needs when it starts (Prefect's task engine, the store, the local
sandbox, the Lean checker), not during its first task: those imports are ~3 CPU-s that would otherwise
land inside the first batch every worker runs, on the job's clock. The scheduler unpickles every task
graph it is sent (``Scheduler.update_graph``), and a surge graph holds Prefect's task engine and our
batch task: without the preload its first job paid ~4 CPU-s of those imports on the cluster's cores
(py-spy on the scheduler), and a scheduler that cannot import them fails the job.

Dask calls ``dask_setup`` as the scheduler or worker starts: Prefect is configured as a command's
engine configures it, then imported once, without the cyclic collector.
"""

from __future__ import annotations

from flows.collector import collector_paused
from flows.runtime import configure_prefect


def dask_setup(service: object) -> None:
    configure_prefect()
    with collector_paused():
        import flows.run_programs  # noqa: F401  (Prefect and the batch task)
        import sandboxes.backends.bwrap  # noqa: F401
        import sandboxes.lean.backend  # noqa: F401
