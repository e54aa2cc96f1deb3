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
