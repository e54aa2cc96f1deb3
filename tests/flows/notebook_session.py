"""A notebook's session, run as a script in a fresh interpreter by test_calls_leave_the_process_alone.py.

It calls `build`, `export`, `audit`, `score` and `run` through `import surge`: one at a time, then all
five at once from threads, then one at a time inside a Prefect flow of the user's own that runs against
the user's own Prefect API (``argv[2]``). ``os.environ`` is guarded from the first line: every write to
it, from any thread, is recorded. It prints one JSON line: each way's summaries, the writes, and what the
user's flow saw of its own settings before, during and after the calls.

    python notebook_session.py WORKDIR USERS_API_URL
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

WRITES: list[str] = []


class GuardedEnvironment(type(os.environ)):  # type: ignore[misc]
    """``os.environ`` as it was, recording each write (``setdefault``, ``pop``, ``update`` come here too)."""

    def __setitem__(self, key: str, value: str) -> None:
        WRITES.append(f"set {key} in {threading.current_thread().name}")
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        WRITES.append(f"del {key} in {threading.current_thread().name}")
        super().__delitem__(key)


os.environ.__class__ = GuardedEnvironment
ENVIRONMENT = dict(os.environ)

import surge  # noqa: E402  (after the guard: importing must not write either)

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "examples" / "programs.jsonl"
RELEASED_ML = ROOT / "sources" / "samples" / "surge-released" / "ml.json"
LIMITS = {"cpu_s": 1.0, "wall_s": 12.0}  # the endless loop stops on CPU, even on a busy machine


def python_programs(folder: Path) -> Path:
    """The bundled examples' Python lines: every verdict the examples show, no compiler to wait for."""
    lines = [line for line in PROGRAMS.read_text().splitlines() if json.loads(line)["language"] == "python"]
    (folder / "programs.jsonl").write_text("\n".join(lines) + "\n")
    return folder / "programs.jsonl"


def predictions(folder: Path) -> Path:
    """Two predictions for the bundled release's ml subset: the first right, the second wrong."""
    records = json.loads(RELEASED_ML.read_text())
    lines = [
        {"subset": "ml", "index": 0, "prediction": "Output:\n" + records[0]["gt"]},
        {"subset": "ml", "index": 1, "prediction": "Output:\nsurely not"},
    ]
    (folder / "predictions.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder / "predictions.jsonl"


def calls(work: Path, way: str) -> dict[str, Callable[[], Any]]:
    """The five calls, each writing under ``work/way``; export and audit read what the first way's build
    and export wrote (``work/inputs``), so that way runs them in this order."""
    out, inputs = work / way, work / "inputs"
    return {
        "build": lambda: surge.build(subsets=["sc"], n=2, batch_size=2, store=out / "build"),
        "export": lambda: surge.export(store=inputs / "build", out=out / "export"),
        "audit": lambda: surge.audit(dataset=inputs / "export" / "dataset", store=out / "audit", **LIMITS),
        "score": lambda: surge.score(predictions=work / "predictions.jsonl", dataset=[RELEASED_ML]),
        "run": lambda: surge.run(programs=work / "programs.jsonl", store=out / "run", **LIMITS),
    }


def described(summary: Any, work: Path, way: str) -> dict[str, Any]:
    """A summary as data, its own output folder written as OUT and the shared inputs as INPUTS."""
    text = json.dumps(summary.model_dump(mode="json"), sort_keys=True)
    text = text.replace(str(work / way), "OUT").replace(str(work / "inputs"), "INPUTS")
    return {"summary": json.loads(text), "ok": summary.ok}


def one_at_a_time(work: Path, way: str) -> dict[str, Any]:
    return {name: described(call(), work, way) for name, call in calls(work, way).items()}


def all_at_once(work: Path) -> dict[str, Any]:
    """The five calls from five threads at once; each summary with when its call ran (monotonic s)."""

    def timed(call: Callable[[], Any]) -> tuple[Any, list[float]]:
        start = time.monotonic()
        return call(), [start, time.monotonic()]

    with ThreadPoolExecutor(max_workers=5, thread_name_prefix="notebook") as threads:
        futures = {name: threads.submit(timed, call) for name, call in calls(work, "threads").items()}
        outcomes = {name: future.result() for name, future in futures.items()}
    return {
        name: {**described(summary, work, "threads"), "ran": ran} for name, (summary, ran) in outcomes.items()
    }


def in_the_users_flow(work: Path, users_api_url: str) -> dict[str, Any]:
    """The calls inside a flow of the user's, run against the user's API with their logging level; a task
    of theirs watches the flow's settings meanwhile."""
    from prefect import flow, task
    from prefect.cache_policies import NO_CACHE
    from prefect.settings import (
        PREFECT_API_URL,
        PREFECT_LOGGING_LEVEL,
        get_current_settings,
        temporary_settings,
    )

    done = threading.Event()

    def settings_seen() -> list[str]:
        settings = get_current_settings()
        return [str(settings.api.url), str(settings.home), settings.logging.level]

    @task(cache_policy=NO_CACHE)
    def watch() -> list[list[str]]:
        seen: list[list[str]] = []
        while not done.wait(0.05):
            if settings_seen() not in seen:
                seen.append(settings_seen())
        return seen

    @flow
    def users_own_flow() -> dict[str, Any]:
        watching = watch.submit()
        before = settings_seen()
        summaries = one_at_a_time(work, "flow")
        after = settings_seen()
        done.set()
        return {"summaries": summaries, "before": before, "during": watching.result(), "after": after}

    with temporary_settings({PREFECT_API_URL: users_api_url, PREFECT_LOGGING_LEVEL: "INFO"}):
        seen = users_own_flow()
        seen["flow_runs"] = sorted(run.name for run in users_flow_runs())
        seen["users_settings"] = settings_seen()
    return seen


def users_flow_runs() -> list[Any]:
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        return client.read_flow_runs()


def main() -> None:
    work, users_api_url = Path(sys.argv[1]), sys.argv[2]
    python_programs(work)
    predictions(work)
    report: dict[str, Any] = {"one_at_a_time": one_at_a_time(work, "inputs")}
    report["all_at_once"] = all_at_once(work)
    report["in_the_users_flow"] = in_the_users_flow(work, users_api_url)
    report["writes"] = WRITES
    report["environment_kept"] = dict(os.environ) == ENVIRONMENT
    print(json.dumps(report, sort_keys=True))


if __name__ == "__main__":
    main()
