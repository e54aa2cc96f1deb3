"""A one-file program as the question a model reads, and back: the code, and where the program reads
stdin, its input too; sc's and tc's scripts with their command line.

A label that depends on an input its question does not show can be neither predicted nor reproduced from
the record (cl's OJCode programs read stdin), so such a question is a ```code``` block, then an
```input``` block: sc's two-block shape, with the input where sc has its command line. A build writes it
(pipeline/build/refactor.py) and the audit of an export reads it back (pipeline/subsets/programs.py).
"""

from __future__ import annotations

import re
import shlex

from pipeline.records import Program

_CODE_AND_INPUT = re.compile(r"code:```\n(?P<code>.*?)\n```\ninput:```\n(?P<stdin>.*)```", re.DOTALL)


def two_blocks(code: str, name: str, body: str) -> str:
    """SURGE's two-block question: the code in a ```code``` block, then ``body`` in a block named ``name``."""
    return f"code:```\n{code}\n```\n{name}:```\n{body}```"


def script_question(program: Program) -> str:
    """SURGE's sc/tc question: the script in a ```code``` block, the command line in a ```command``` block."""
    command = shlex.join(["python", program.entry_file.path, *program.argv])
    return two_blocks(program.entry_file.content, "command", f"{command}\n")


def program_question(program: Program) -> str:
    """What a model reads of a one-file program: its code, and the input it reads, if any."""
    code = program.entry_file.content
    return two_blocks(code, "input", program.stdin) if program.stdin else code


def code_and_input(question: str) -> tuple[str, str]:
    """``program_question`` read back: (code, stdin); a question that is plain code has no input."""
    match = _CODE_AND_INPUT.fullmatch(question)
    return (match["code"], match["stdin"]) if match else (question, "")
