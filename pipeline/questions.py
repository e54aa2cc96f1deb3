"""A one-file program as the question a model reads, and back: the code, and where the program reads
stdin, its input too.

A label that depends on an input its question does not show can be neither predicted nor reproduced from
the record (cl's OJCode programs read stdin), so such a question is a ```code``` block, then an
```input``` block: sc's two-block shape, with the input where sc has its command line. A build writes it
(pipeline/build/refactor.py) and the audit of an export reads it back (pipeline/subsets/programs.py).
"""

from __future__ import annotations

import re

from pipeline.records import Program

_CODE_AND_INPUT = re.compile(r"code:```\n(?P<code>.*?)\n```\ninput:```\n(?P<stdin>.*)```", re.DOTALL)


def program_question(program: Program) -> str:
    """What a model reads of a one-file program: its code, and the input it reads, if any."""
    code = program.entry_file.content
    if not program.stdin:
        return code
    return f"code:```\n{code}\n```\ninput:```\n{program.stdin}```"


def code_and_input(question: str) -> tuple[str, str]:
    """``program_question`` read back: (code, stdin); a question that is plain code has no input."""
    match = _CODE_AND_INPUT.fullmatch(question)
    return (match["code"], match["stdin"]) if match else (question, "")
