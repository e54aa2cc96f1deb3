"""A review queue filled with real refactor outcomes (built directly: these tests are about the queue)."""

from __future__ import annotations

from pathlib import Path

from pipeline.records import Language, Program, ProgramFile
from pipeline.refactor.outcome import ExecutionFacts, Outcome, Round
from pipeline.review.queue import ReviewQueue
from tests.refactor.helpers import mceval_item

SOURCE = "def add{n}(a, b):\n    return a + b\n\nprint(add{n}(2, 3))\n"


def candidate(number: int) -> tuple:
    item = mceval_item(number)
    text = SOURCE.format(n=number)
    program = Program(
        language=Language.PYTHON,
        files=(ProgramFile(path="main.py", content=text),),
        origin={"source": "mceval", "key": item.key, "item_id": item.item_id, "method": "mceval"},
    )
    run = ExecutionFacts(verdict="ok", stdout="5\n", label="5\n")
    outcome = Outcome(
        item_id=item.item_id,
        source=item.source,
        key=item.key,
        method="mceval",
        prompt="mceval.v1",
        status="candidate",
        program=program,
        run=run,
        leaks=["comment line 4: # Output: 5"] if number == 3 else [],
        rounds=[
            Round(
                index=1,
                prompt="mceval.v1",
                answer=f"```python\n{text}```",
                finish_reason="stop",
                cached=False,
                program=program,
                run=run,
            )
        ],
    )
    return item, outcome


def filled_queue(path: Path, count: int = 3) -> tuple[ReviewQueue, list]:
    queue = ReviewQueue(path)
    items = []
    for number in range(1, count + 1):
        item, outcome = candidate(number)
        assert queue.add_outcome(item, outcome)
        items.append(item)
    return queue, items
