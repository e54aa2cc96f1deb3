"""The Prefect settings an engine runs its flows with, chosen and put in force without writing ``os.environ``.

Prefect reads its settings from its settings context (``prefect.context.SettingsContext``, a context
variable) and, where no context is entered, from the settings it built out of the environment and the
active profile as it was imported. An engine (flows/engine.py) chooses its settings as it opens
(``choose_settings``): the user's where their environment, their active profile or their own code (a flow
of theirs under ``temporary_settings`` or ``use_profile``) sets one, surge's defaults (``SURGE_DEFAULTS``)
for the rest. It puts them in force as a settings context of its own for the duration of its work
(``settings_in_force``). The process's environment is only read: two calls from two threads of one
notebook each run with their own settings, and a user's flow around a call keeps its own.

Who sees a context: the thread that entered it, and whatever copies that thread's context (Prefect's task
runners copy it into each task, its global event loop into each call; a Dask task gets the settings in
the context Prefect sends with it). A new thread starts with an empty context and sees the import-time
settings, the user's: surge's own threads (the head start's) run no Prefect. The local API server is a
process of its own: it is started with the chosen settings in an environment built as a copy
(``PrefectSettings.server_environment``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from flows.collector import collector_paused

# Where Prefect keeps its state (its SQLite database, the local API's logs) unless PREFECT_HOME says:
# one folder per user, never the working folder (docs/api.md, "Prefect's settings").
STATE_SUBDIR = Path("surge") / "prefect"
STARTUP_TIMEOUT_VARIABLE = "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"
SURGE_DEFAULTS: dict[str, str] = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_LOGGING_LEVEL": "WARNING",
    # Logs reach the UI, bounded: the engines' loggers stay at WARNING and each flow sends only its
    # summary and its warnings (``flows.runtime.flow_log``), never a line per program or per batch.
    "PREFECT_LOGGING_TO_API_ENABLED": "true",
    "PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW": "ignore",
    "PREFECT_RESULTS_PERSIST_BY_DEFAULT": "false",
    STARTUP_TIMEOUT_VARIABLE: "120",
    # Prefect 3 records task runs from their events (the task-run recorder): it stays on, so each batch
    # is a task run with its state in Prefect's database; ``flows.runtime.wait_for_task_runs`` lets it
    # catch up before a command ends. The other services only feed the UI.
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_ENABLED": "true",
    "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED": "false",
    "PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED": "false",
    "PREFECT_SERVER_SERVICES_SCHEDULER_ENABLED": "false",
    "PREFECT_SERVER_SERVICES_LATE_RUNS_ENABLED": "false",
    "PREFECT_SERVER_SERVICES_FOREMAN_ENABLED": "false",
    # No blocks are used: registering Prefect's block types at each start loaded every installed
    # collection (prefect-dask, hence Dask) in the server, ~0.5 CPU-s per command.
    "PREFECT_SERVER_REGISTER_BLOCKS_ON_START": "false",
    "PREFECT_SERVER_MEMOIZE_BLOCK_AUTO_REGISTRATION": "false",
}
# Flow-run heartbeats serve automations that mark silent flows crashed, which a per-command API never
# runs; their thread, sleeping in one-second steps, held every flow's end for up to a second (0.4 s on
# average, measured). Off unless the user sets a frequency.
HEARTBEAT_VARIABLES = frozenset({"PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "PREFECT_RUNNER_HEARTBEAT_FREQUENCY"})
# The server's own, in its environment only: no UI for a per-command API, and Prefect's client-side
# telemetry (which Prefect reads from DO_NOT_TRACK alone, no setting) off in that process.
SERVER_VARIABLES = {"PREFECT_UI_ENABLED": "0", "DO_NOT_TRACK": "1"}


class PrefectSettings(BaseModel):
    """The Prefect settings one engine runs with, by Prefect's environment variable names."""

    model_config = ConfigDict(frozen=True)

    in_force: dict[str, str] = Field(
        description="every setting surge chooses (PREFECT_HOME, SURGE_DEFAULTS, the profiles file), as the "
        "engine runs with it: the user's value where they set one, else surge's"
    )
    chosen: frozenset[str] = Field(description="the names in in_force the user left unset: surge's values")
    api_url: str | None = Field(description="the user's server (or their flow's); None: start one")
    heartbeats_set: bool = Field(description="the user set a heartbeat frequency (else heartbeats are off)")

    @property
    def home(self) -> Path:
        return Path(self.in_force["PREFECT_HOME"])

    @property
    def startup_timeout_s(self) -> float:
        return float(self.in_force[STARTUP_TIMEOUT_VARIABLE])

    def updates(self) -> dict[str, str | None]:
        """What the engine's settings context changes: surge's values, where the user set none."""
        updates: dict[str, str | None] = {name: self.in_force[name] for name in sorted(self.chosen)}
        if not self.heartbeats_set:
            updates["PREFECT_FLOWS_HEARTBEAT_FREQUENCY"] = None
        return updates

    def server_environment(self) -> dict[str, str]:
        """The environment the local API server starts with: a copy of this process's, with these
        settings and the server's own (``SERVER_VARIABLES``; a DO_NOT_TRACK of the user's wins)."""
        environment = {**os.environ, **self.in_force}
        environment["PREFECT_UI_ENABLED"] = SERVER_VARIABLES["PREFECT_UI_ENABLED"]
        environment.setdefault("DO_NOT_TRACK", SERVER_VARIABLES["DO_NOT_TRACK"])
        return environment


def default_prefect_home() -> Path:
    """``$XDG_STATE_HOME/surge/prefect``, else ``~/.local/state/surge/prefect``."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state).expanduser().resolve() / STATE_SUBDIR


def choose_settings(state_dir: Path | None = None) -> PrefectSettings:
    """The settings in force where this is called, completed with surge's; ``state_dir``: a folder to
    keep Prefect's home in (``state_dir/prefect``) instead of the per-user default."""
    users = users_settings()
    home = (state_dir / "prefect").resolve() if state_dir is not None else default_prefect_home()
    ours = {"PREFECT_HOME": str(home), **SURGE_DEFAULTS}
    profiles = profiles_path(users)
    if profiles.is_file():  # Prefect looks in its home; moving the home must not hide the user's profiles
        ours["PREFECT_PROFILES_PATH"] = str(profiles)
    return PrefectSettings(
        in_force={name: users.get(name, value) for name, value in ours.items()},
        chosen=frozenset(name for name in ours if name not in users),
        api_url=users_server(users),
        heartbeats_set=bool(HEARTBEAT_VARIABLES & users.keys()),
    )


def users_settings() -> dict[str, str]:
    """The Prefect settings the user set, by variable name. With Prefect imported, the settings context
    in force says, holding the environment, the active profile and what the user's own code entered;
    before, nobody can have entered one, and the environment and the profiles file say (the environment
    wins over the profile, as in Prefect)."""
    if "prefect.context" in sys.modules:
        from prefect.settings import get_current_settings

        return get_current_settings().to_environment_variables(exclude_unset=True)
    environment = {name: value for name, value in os.environ.items() if name.startswith("PREFECT_")}
    return {**active_profile(profiles_path(environment), environment.get("PREFECT_PROFILE")), **environment}


def users_server(users: Mapping[str, str]) -> str | None:
    """The server the user's settings name; inside a flow of theirs that names none (it runs on the
    ephemeral server Prefect started in this process), the server that flow reports to: surge's flows run
    as its subflows, and a subflow is recorded beside its parent (elsewhere, creating it was refused with
    a 409, its parent unknown)."""
    if users.get("PREFECT_API_URL"):
        return users["PREFECT_API_URL"]
    if "prefect.context" not in sys.modules:
        return None
    from prefect.context import FlowRunContext

    users_flow = FlowRunContext.get()
    return str(users_flow.client.api_url).rstrip("/") if users_flow is not None else None


def profiles_path(users: Mapping[str, str]) -> Path:
    """Prefect's profiles file: PREFECT_PROFILES_PATH, else ``profiles.toml`` in the user's Prefect home."""
    home = Path(users.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser()
    return Path(users.get("PREFECT_PROFILES_PATH") or home / "profiles.toml").expanduser()


def active_profile(profiles: Path, name: str | None) -> dict[str, str]:
    """The settings of the active profile (``name``, else the file's ``active``); none without a file."""
    if not profiles.is_file():
        return {}
    import tomllib

    try:
        content = tomllib.loads(profiles.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        from pipeline.errors import ConfigurationError

        raise ConfigurationError(
            f"cannot read Prefect's profiles file {profiles}: {error}",
            hint="fix the file (`prefect profile ls` reads it too) or set PREFECT_PROFILES_PATH to another",
        ) from None
    values = content.get("profiles", {}).get(name or content.get("active") or "ephemeral", {})
    return {key: str(value) for key, value in values.items() if value not in (None, "")}


@contextmanager
def settings_in_force(updates: Mapping[str, str | None]) -> Iterator[None]:
    """Prefect's settings context for the block: the settings in force with these updates (by variable
    name), seen by this thread and by whatever copies its context; left as it was after."""
    if "prefect.settings" not in sys.modules:
        with collector_paused():  # most of Prefect's import cost is here (~0.8 CPU-s)
            import prefect.settings
    import prefect.settings
    from prefect.settings import temporary_settings

    with temporary_settings({getattr(prefect.settings, name): value for name, value in updates.items()}):
        yield
