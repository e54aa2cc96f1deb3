"""The bg method on real DebugBench items, in the real sandbox, checked against SURGE's released labels.

The scripted answer is the harness SURGE's own bg question shows around the code, with the oracle code put
back and the closing braces restored: SURGE's released bg questions are cut short (bg[0] and bg[1] end inside
`main`, and their released labels report exactly that: "reached end of file while parsing",
"expected '}' at end of input"). The oracle's output must equal SURGE's `gt0`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline.records import LabelProtocol, SourceItem
from pipeline.refactor.execute import Executor
from pipeline.refactor.loop import RepairLoop
from tests.conftest import require_tool
from tests.refactor.helpers import client_for
from tests.refactor.openai_replay import ReplayServer, Reply, code

CLOSING = {"java": "\n    }\n}\n", "cpp": "\n}\n"}


@pytest.mark.parametrize(("surge_index", "tool"), [(0, "javac"), (1, "g++")])
def test_oracle_output_matches_surge_gt0_and_the_buggy_code_is_swapped_in(
    samples: Path, tmp_path: Path, surge_index: int, tool: str
) -> None:
    require_tool(tool)
    debugbench = pytest.importorskip("sources.debugbench", reason="needs the DebugBench adapter")
    from sandboxes import open_backend

    shutil.copytree(
        samples / "debugbench",
        tmp_path / "checkout" / "benchmark",
        ignore=shutil.ignore_patterns("README.txt"),
    )
    items = [x for x in debugbench.read(tmp_path / "checkout", "2761bab9" * 5) if isinstance(x, SourceItem)]
    mapping = (samples / "surge-mapping" / "bg_to_debugbench.tsv").read_text().splitlines()[1 + surge_index]
    _, language, file, _, slug, _ = mapping.split("\t")
    record = json.loads((samples / "surge-released" / "bg.json").read_text())[surge_index]
    item = next(i for i in items if i.fields["slug"] == slug and i.upstream_path.endswith(Path(file).name))
    buggy, oracle = item.fields["buggy_code"].strip(), item.fields["oracle_code"].strip()
    harness = record["question"].replace(buggy, oracle).rstrip() + CLOSING[language]

    with (
        ReplayServer([Reply(code(language, harness))]) as server,
        open_backend("bwrap", unsafe=True) as sandbox,
    ):
        outcome = RepairLoop(client_for(server, tmp_path / "cache"), Executor(sandbox)).refactor(item)

    assert outcome.status == "candidate", outcome.reason
    assert outcome.extra["oracle_output"] == record["custom_features"]["gt0"]
    assert outcome.program is not None and outcome.program.protocol is LabelProtocol.COMBINED_WITH_PREFIX
    assert buggy in outcome.program.entry_file.content and oracle not in outcome.program.entry_file.content
    assert outcome.run is not None and outcome.run.label
