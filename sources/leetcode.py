"""LeetCode write-ups (github.com/azl397985856/leetcode): ``problems/*.md``, Chinese and English.

One item per markdown file: the text is the file verbatim; the fields hold the number, slug, title,
statement and every code fence with its language. The repository is CC BY-NC-ND 4.0 (non-commercial,
no derivatives): the licence travels in every item so exports can refuse or flag it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pipeline.records import Language, QuarantinedRecord
from sandboxes.languages import parse_language
from sources.base import Loaded, Source, quarantine, read_text

NAME = "leetcode"
FILE_NAME = re.compile(r"^(?:(?P<number>\d+)\.)?(?P<slug>.+?)(?P<english>[.-]en)?\.md$")
TITLE = re.compile(
    r"^##\s*(?:题目地址|Problem)\s*[（(]\s*(?:(?P<number>\d+)\.\s*)?(?P<title>.+?)\s*[)）]\s*$"
)
STATEMENT_HEADINGS = ("题目描述", "problem description", "description")
KEYWORD_HEADINGS = ("前置知识", "prerequisites", "pre-knowledge")
LIST_ITEM = re.compile(r"^\s*[-*]\s+(?:\[(?P<linked>[^\]]+)\]\([^)]*\)|(?P<plain>.+?))\s*$")
FENCE = re.compile(r"^\s*```\s*(?P<info>[^`\s]*)")


def fence_language(tag: str) -> Language | None:
    try:
        return parse_language(tag)
    except ValueError:  # sql, kotlin, ...: kept in the fields, no sandbox language
        return None


def split_markdown(text: str) -> tuple[list[tuple[str, list[str]]], list[dict[str, Any]]]:
    """Sections (heading, lines outside fences plus fenced lines) and code fences (tag, code, line)."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    fences: list[dict[str, Any]] = []
    open_fence: dict[str, Any] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line)
        if open_fence is None and match:
            open_fence = {"tag": match["info"], "line": number, "code": []}
            continue
        if open_fence is not None and match and not match["info"]:
            fences.append({**open_fence, "code": "\n".join(open_fence["code"]) + "\n"})
            sections[-1][1].extend(open_fence["code"])
            open_fence = None
            continue
        if open_fence is not None:
            open_fence["code"].append(line)
        elif line.startswith("## "):
            sections.append((line[3:].strip(), []))
        else:
            sections[-1][1].append(line)
    return sections, fences


def statement_of(sections: list[tuple[str, list[str]]]) -> str:
    for heading, lines in sections:
        if heading.lower() in STATEMENT_HEADINGS:
            return "\n".join(lines).strip()
    return ""


def keywords_of(sections: list[tuple[str, list[str]]]) -> list[str]:
    """The write-up's own topic list (its prerequisites section: `- [位运算](...)` or `- 动态规划`)."""
    for heading, lines in sections:
        if heading.lower() in KEYWORD_HEADINGS:
            found = (LIST_ITEM.match(line) for line in lines)
            return [m["linked"] or m["plain"] for m in found if m]
    return []


def parse_write_up(relative: str, text: str) -> dict[str, Any] | None:
    """The fields of one write-up, or None if it has neither a statement nor any code."""
    name = FILE_NAME.match(Path(relative).name)
    sections, fences = split_markdown(text)
    statement = statement_of(sections)
    solutions = [
        {"language": lang.value if (lang := fence_language(f["tag"])) else None, "fence": f["tag"], **f}
        for f in fences
        if f["tag"]
    ]
    if not statement and not solutions:
        return None
    title_match = next((m for line in text.splitlines()[:5] if (m := TITLE.match(line))), None)
    slug = name["slug"] if name else Path(relative).stem
    number = (name and name["number"]) or (title_match and title_match["number"])
    return {
        "number": int(number) if number else None,
        "slug": slug,
        # English write-ups name the problem only by its URL: the title is rebuilt from the slug
        "title": title_match["title"] if title_match else " ".join(w.capitalize() for w in slug.split("-")),
        "natural_language": "en" if name and name["english"] else "zh",
        "statement": statement,
        "keywords": keywords_of(sections),
        "solutions": [{k: v for k, v in s.items() if k != "tag"} for s in solutions],
    }


def read(checkout: Path, commit: str) -> Iterator[Loaded]:
    for path, relative in SOURCE.files(checkout):
        text = read_text(NAME, path, relative)
        if isinstance(text, QuarantinedRecord):
            yield text
            continue
        fields = parse_write_up(relative, text)
        if fields is None:
            yield quarantine(NAME, relative, "no problem statement and no code fence", text)
            continue
        yield SOURCE.item(key=Path(relative).stem, commit=commit, path=relative, text=text, fields=fields)


SOURCE = Source(
    name=NAME,
    url="https://github.com/azl397985856/leetcode",
    commit="4183cbac626349a23ceaf3df5afb15806709028e",
    licence="CC-BY-NC-ND-4.0",
    kind="git",
    paths=("problems/*.md",),
    samples="azl397985856-leetcode/problems",
    read=read,
    description="LeetCode solution write-ups, zh and en (SURGE cl); non-commercial, no derivatives",
)
