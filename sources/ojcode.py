"""OJCode (github.com/ShanireZ/OJCode, the GitHub copy of gitee.com/shanire/OJCode): C++14 solutions.

Each ``.cpp`` file is one stand-alone program that reads stdin (``g++ -std=c++14``). The judge comes
from the path: the top folder (Luogu/, CodeForces/, LOJ/, PAT/), or for the mixed ``SP UVA AT/``
folder the file-name prefix. Upstream has no test inputs: a runnable item needs one written later.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from pipeline.records import Language, QuarantinedRecord
from sources.base import Loaded, Source, read_text

NAME = "ojcode"
FOLDER_JUDGES = {"Luogu": "Luogu", "CodeForces": "CodeForces", "LOJ": "LOJ", "PAT": "PAT"}
MIXED_FOLDER = "SP UVA AT"
MIXED_PREFIXES = (("UVA", "UVa"), ("SP", "SPOJ"))  # every other file there is AtCoder (ABC, ARC, AGC, ...)


def judge_of(relative: str) -> str:
    """'Luogu/P1001.cpp' -> Luogu; 'SP UVA AT/UVA10000.cpp' -> UVa; 'SP UVA AT/ABC093A.cpp' -> AtCoder."""
    parts = PurePosixPath(relative).parts
    if parts[0] == MIXED_FOLDER:
        name = parts[-1]
        return next((judge for prefix, judge in MIXED_PREFIXES if name.startswith(prefix)), "AtCoder")
    return FOLDER_JUDGES.get(parts[0], parts[0])


def read(checkout: Path, commit: str) -> Iterator[Loaded]:
    for path, relative in SOURCE.files(checkout):
        text = read_text(NAME, path, relative)
        if isinstance(text, QuarantinedRecord):
            yield text
            continue
        parts = PurePosixPath(relative).parts
        yield SOURCE.item(
            key=relative.removesuffix(".cpp"),
            commit=commit,
            path=relative,
            text=text,
            language=Language.CPP,
            upstream_language="C++14",
            fields={
                "judge": judge_of(relative),
                "problem": path.stem,
                "group": "/".join(parts[1:-1]),  # PAT's '19Q4/Advanced'; empty elsewhere
                "standard": "c++14",
                "needs_input": True,  # reads stdin; upstream has no inputs
            },
        )


SOURCE = Source(
    name=NAME,
    url="https://github.com/ShanireZ/OJCode",
    commit="e3a3fb91bb4bc0545b1ae7e3d7ebab19ba0dce31",
    licence="GPL-3.0",
    kind="git",
    paths=("**/*.cpp",),
    read=read,
    description="OJCode: 3,208 stand-alone C++14 stdin solutions (Luogu, CodeForces, LOJ, PAT, AtCoder, ...)",
)
