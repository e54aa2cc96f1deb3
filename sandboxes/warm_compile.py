"""A language spec's warm compiler and seeded cache as the compile phase hands them to the in-sandbox
runner (sandboxes/inner/warm.py answers with them; docs/sandboxes.md, "Compile speed")."""

from __future__ import annotations

from sandboxes.inner.protocol import SeededCache as SeededCacheEntry
from sandboxes.inner.protocol import WarmServer
from sandboxes.languages.base import SeededCache, WarmCompiler


def warm_server_entry(warm: WarmCompiler) -> WarmServer:
    return {"server": list(warm.server), "serves": warm.serves}


def seeded_cache_entry(seed: SeededCache) -> SeededCacheEntry:
    return {
        "serves": seed.serves,
        "files": [{"path": path, "text": text} for path, text in seed.files],
        "argv": list(seed.argv),
        "cache_env": seed.cache_env,
        "with_seed": list(seed.with_seed),
        "prologue": seed.prologue,
    }
