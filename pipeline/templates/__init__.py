"""The template library for manual implementation (sc, tc, dr): see base.py, catalog.py, snippet_files.py."""

from __future__ import annotations

from pipeline.templates.base import SCRIPTS_DIR, Script, ScriptTemplate, SnippetTemplate, instance_rng
from pipeline.templates.catalog import SC, TC
from pipeline.templates.snippet_files import library_snippets


def library_scripts(subset: str) -> tuple[ScriptTemplate, ...]:
    """The library's scripts of a subset, in the catalog's order: those whose file is in its folder."""
    return tuple(
        ScriptTemplate(script.fid, subset, script.domain, script.sampler, scale=script.scale)
        for script in (*SC, *TC)
        if (SCRIPTS_DIR / subset / script.fid).is_file()
    )


def script_libraries() -> dict[str, tuple[ScriptTemplate, ...]]:
    """Every subset with a folder of library scripts, and its scripts."""
    folders = sorted(path.name for path in SCRIPTS_DIR.iterdir() if path.is_dir())
    return {name: library_scripts(name) for name in folders}


__all__ = [
    "Script",
    "ScriptTemplate",
    "SnippetTemplate",
    "instance_rng",
    "library_scripts",
    "library_snippets",
    "script_libraries",
]
