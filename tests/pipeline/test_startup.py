"""What every `surge` command pays before it starts: building the parser imports no heavy optional package."""

from __future__ import annotations

import json
import subprocess
import sys

# Loaded by the few commands that need them, inside them: each had cost every command, `surge run`
# included, ~0.07-0.2 s of start-up when the parser imported it.
ONLY_WHEN_NEEDED = ("huggingface_hub", "httpx", "pipeline.review.queue", "pipeline.llm.client")


def test_building_the_parser_imports_no_package_only_some_commands_need() -> None:
    probe = (
        "import json, sys, pipeline.cli; pipeline.cli.build_parser(); "
        f"print(json.dumps([m for m in {ONLY_WHEN_NEEDED!r} if m in sys.modules]))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


# What `import surge` leaves for a stage's first call: the stages' modules bring the store (pyarrow,
# numpy) and Prefect; importing them all at once made `import surge` cost 2.4 s instead of 0.75 s.
LOADED_BY_A_CALL = ("pyarrow", "numpy", "prefect", "pipeline.store", "pipeline.stages.run", "pipeline.audit")


def test_import_surge_loads_no_stage_until_one_is_used() -> None:
    watched = repr(LOADED_BY_A_CALL)
    probe = (
        f"import json, sys, surge; before = [m for m in {watched} if m in sys.modules]; "
        f"surge.RunSummary; after = [m for m in {watched} if m in sys.modules]; "
        "print(json.dumps([before, after]))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    before, after = json.loads(done.stdout)
    assert before == [] and "pipeline.stages.run" in after
