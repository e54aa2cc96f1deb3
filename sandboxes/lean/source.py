"""Split a Lean file into its header (imports and preamble) and its body, keeping line numbers exact.

The header is what a warm REPL elaborates once (`import Mathlib` costs seconds and gigabytes); the body
runs against the header's environment as `{"cmd": body, "env": header_env}`. The REPL numbers the body's
lines from 1, so every position it reports is shifted by `body_line_offset` to count over the whole file,
as SURGE's labels do. The split is at a line boundary, so columns never move.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Preamble commands that change the environment or the scope for everything after them. `open X in` and
# `set_option x v in` only modify the next command, so they stay with it in the body.
_PREAMBLE = re.compile(r"^(import|open|set_option|universe)\s")
_NAMED_DECL = re.compile(
    r"^(?:@\[[^\]]*\]\s*)?(?:(?:private|protected|noncomputable|nonrec|unsafe|partial)\s+)*"
    r"(?:theorem|lemma|def|abbrev|instance|axiom|opaque)\s+([^\s:({\[]+)",
    re.MULTILINE,
)
_USER_AXIOM = re.compile(r"^(?:(?:private|protected|noncomputable|unsafe)\s+)*axiom\s+([^\s:({\[]+)", re.M)


@dataclass(frozen=True)
class LeanSource:
    header: str  # the first `body_line_offset` lines, joined by "\n" (the pool's key)
    body: str
    body_line_offset: int  # body line 1 is file line body_line_offset + 1

    @property
    def declarations(self) -> list[str]:
        """Names of the body's named declarations, whose axioms the audit prints."""
        return list(dict.fromkeys(_NAMED_DECL.findall(_strip_comments(self.body))))

    @property
    def user_axioms(self) -> list[str]:
        return list(dict.fromkeys(_USER_AXIOM.findall(_strip_comments(self.body))))


def _is_preamble(line: str) -> bool:
    if not _PREAMBLE.match(line):
        return False
    words = line.split("--", 1)[0].split()
    return bool(words) and words[-1] != "in"


def split_source(text: str) -> LeanSource:
    """Header: the leading import/open/set_option/universe lines, with the blank lines and comments
    between them (Lean allows comments before `import`); a comment after the last one opens the body."""
    lines = text.split("\n")
    header_end = 0
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.strip() or line.lstrip().startswith("--"):
            index += 1
            continue
        if line.lstrip().startswith("/-") and not line.lstrip().startswith("/--"):
            index = _after_block_comment(lines, index)
            continue
        if not _is_preamble(line) or _continues(lines, index):
            break
        index += 1
        header_end = index
    return LeanSource(
        header="\n".join(lines[:header_end]),
        body="\n".join(lines[header_end:]),
        body_line_offset=header_end,
    )


def _after_block_comment(lines: list[str], start: int) -> int:
    """The index of the line after the one closing the block comment opened on lines[start]."""
    depth = 0
    for index in range(start, len(lines)):
        depth += lines[index].count("/-") - lines[index].count("-/")
        if depth <= 0:
            return index + 1
    return len(lines)


def _continues(lines: list[str], index: int) -> bool:
    """A preamble command continued on an indented next line (`open Foo\\n  Bar`) is not split off."""
    for following in lines[index + 1 :]:
        if following.strip():
            return following[:1].isspace()
    return False


def _strip_comments(text: str) -> str:
    text = re.sub(r"/-.*?-/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"--[^\n]*", "", text)
