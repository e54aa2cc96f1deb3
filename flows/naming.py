"""What a person reads about a job in Prefect's UI: the flow run's name, its tags, its summary.

Prefect names a flow run at random (``umber-cockle``) and a task run by its function (``execute_batch-b74``):
a list of runs then says nothing. A job here is named by what ran (``audit dr,tc × 5 profiles``,
``build sc n=150 seed=7``) and tagged with its command, subsets and profiles, so the UI's filters find it.
Names and tags are small and bounded (a few subsets and profiles, never a program), so Prefect's database
sees the same few hundred bytes whatever the programs hold.

Nothing here imports Prefect: the label is made while the command plans.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

MAX_NAMED = 4  # subsets or profiles spelled out in a name; more are counted ("7 profiles")
MAX_TAGS = 12  # Prefect filters on tags; a job with dozens of profiles gets the first ones


class JobLabel(BaseModel):
    """The few facts about a run or audit job that its flow run shows: never a program, only names."""

    model_config = ConfigDict(frozen=True)

    command: str = Field(description="'run' or 'audit'")
    subsets: tuple[str, ...] = Field(default=(), description="subsets of the programs, from their origin")
    profiles: tuple[str, ...] = Field(default=(), description="environment profiles the programs run under")
    programs: int = Field(default=0, ge=0, description="distinct programs in the job")
    runs: int = Field(default=0, ge=0, description="run requests in the job")
    report: str | None = Field(default=None, description="the HTML report this job feeds (audit)")

    @classmethod
    def of(cls, command: str, requests: Iterable[Any], report: str | None = None) -> JobLabel:
        """The label of a job over these run requests (``pipeline.records.RunRequest``)."""
        subsets: set[str] = set()
        profiles: set[str] = set()
        programs: set[str] = set()
        runs = 0
        for request in requests:
            runs += 1
            profiles.add(request.profile.name)
            programs.add(request.program.program_id)
            if subset := request.program.origin.get("subset"):
                subsets.add(subset)
        return cls(
            command=command.removeprefix("surge-"),
            subsets=tuple(sorted(subsets)),
            profiles=tuple(sorted(profiles)),
            programs=len(programs),
            runs=runs,
            report=report,
        )

    @property
    def flow_name(self) -> str:
        return f"surge-{self.command}"

    def flow_run_name(self) -> str:
        """``audit dr,tc × 5 profiles``; ``run 12 programs × default``."""
        count = f"{self.programs} program" + ("" if self.programs == 1 else "s")
        what = named(self.subsets, "subsets") if self.subsets else count
        return f"{self.command} {what} × {named(self.profiles, 'profiles')}"

    def batch_what(self) -> str:
        """What a batch's task run name says after its place in the plan (``batch 3/12 dr,tc``)."""
        return named(self.subsets, "subsets") if self.subsets else self.command

    def tags(self) -> list[str]:
        return job_tags(self.command, subsets=self.subsets, profiles=self.profiles)


def named(values: tuple[str, ...], plural: str) -> str:
    """``dr,tc`` for a few values, ``7 profiles`` for many."""
    if len(values) <= MAX_NAMED:
        return ",".join(values) or f"no {plural}"
    return f"{len(values)} {plural}"


def job_tags(command: str, subsets: Iterable[str] = (), profiles: Iterable[str] = ()) -> list[str]:
    """The command, ``subset:sc``, ``profile:default``: what the UI's tag filter offers. Each tag rides on
    every event of every task run (a related resource of ~70 bytes), so only these few."""
    tags = [command]
    tags += [f"subset:{subset}" for subset in subsets]
    tags += [f"profile:{profile}" for profile in profiles]
    return tags[:MAX_TAGS]


def summary_markdown(title: str, counts: Mapping[str, Any], notes: Iterable[str] = ()) -> str:
    """A flow run's summary artifact: a title, a two-column table of its counts, then its notes."""
    lines = [f"# {title}", "", "| | |", "|---|---|"]
    lines += [f"| {key} | {value} |" for key, value in counts.items() if not isinstance(value, (dict, list))]
    lines += ["", *(f"- {note}" for note in notes)]
    return "\n".join(lines).rstrip() + "\n"
