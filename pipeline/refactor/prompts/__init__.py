"""Versioned prompt files beside this module (package data): ``<name>.v<version>.md``, a small header,
then ``## system`` / ``## user``.

Placeholders are ``$name`` (string.Template), so code with braces in a prompt needs no escaping. A new prompt
version is a new file; the old one stays, and every answer records the ``name.vN`` that produced it.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from string import Template

from pydantic import BaseModel, ConfigDict

from pipeline.errors import ConfigurationError

_FILE_NAME = re.compile(r"^(?P<name>[a-z0-9_-]+)\.v(?P<version>\d+)\.md$")
_SECTION = re.compile(r"^## (system|user)\s*$", re.MULTILINE)


class Prompt(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    version: int
    answer: str  # 'code', 'input' or 'number': what the answer should hold
    system: str = ""
    user: str

    @property
    def tag(self) -> str:
        return f"{self.name}.v{self.version}"

    def messages(self, **values: object) -> list[dict[str, str]]:
        text = {k: str(v) for k, v in values.items()}
        out = []
        if self.system:
            out.append({"role": "system", "content": Template(self.system).substitute(text).strip()})
        out.append({"role": "user", "content": Template(self.user).substitute(text).strip()})
        return out


def _available() -> dict[str, list[int]]:
    versions: dict[str, list[int]] = {}
    for entry in resources.files(__name__).iterdir():
        match = _FILE_NAME.match(entry.name)
        if match:
            versions.setdefault(match["name"], []).append(int(match["version"]))
    return versions


@cache
def load_prompt(name: str, version: int | None = None) -> Prompt:
    """The prompt `name` at `version` (default: the newest file)."""
    versions = _available().get(name)
    if not versions or (version is not None and version not in versions):
        known = ", ".join(f"{n}.v{v}" for n, vs in sorted(_available().items()) for v in sorted(vs))
        raise ConfigurationError(f"no prompt {name}.v{version or '?'}", hint=f"known prompts: {known}")
    chosen = version if version is not None else max(versions)
    text = resources.files(__name__).joinpath(f"{name}.v{chosen}.md").read_text("utf-8")
    return parse_prompt(text)


def parse_prompt(text: str) -> Prompt:
    _, header, body = text.split("---\n", 2)
    meta = dict(line.split(":", 1) for line in header.strip().splitlines())
    meta = {k.strip(): v.strip() for k, v in meta.items()}
    parts = _SECTION.split(body)
    sections = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    return Prompt(
        name=meta["name"],
        version=int(meta["version"]),
        answer=meta.get("answer", "code"),
        system=sections.get("system", ""),
        user=sections["user"],
    )
