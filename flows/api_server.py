"""This command's Prefect API: the app Prefect's ephemeral mode serves, in a process of its own.

``python -m flows.api_server --port N`` is what ``flows.runtime.LocalApi`` starts. It does what
``uvicorn --factory prefect.server.api.server:create_app`` did, with Python's cyclic collector paused while
Prefect's server is imported and built: that start-up allocates millions of objects and the collector
spent 1.7 of its 7 CPU-s re-scanning them (measured with ``gc.callbacks``). What the start-up built is
then frozen, so later collections during the job skip it.
"""

from __future__ import annotations

import argparse

from flows.runtime import collector_paused, configure_prefect


def main() -> None:
    parser = argparse.ArgumentParser(description="serve Prefect's API for one surge command")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    configure_prefect()
    with collector_paused():
        import uvicorn
        from prefect.server.api.server import create_app

        # ephemeral: no UI and only the services a client needs. Not final: with FastAPI >= 0.137 that
        # only adds a full collection of the heap just built (0.35 of 3.4 CPU-s to ready, measured).
        app = create_app(ephemeral=True)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="error", lifespan="on")


if __name__ == "__main__":
    main()
