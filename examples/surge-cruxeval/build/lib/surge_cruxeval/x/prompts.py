"""CRUXEval-X's output-prediction prompt, as system messages beside the record's question (the program
with its check's expected value written ``??``). Upstream's prompts are per language and per model; these
are ours, one for every language: the record's question already names the language by its code."""

from __future__ import annotations

TASK = (
    "You are given a program and the check at its end, which compares what `f` returns for one input with "
    "an expected value written as ??. Give that expected value as a literal written as the program would "
    "write it (no unsimplified expressions, no function calls beyond the constructors the check already "
    "uses), even if the function is incorrect or incomplete."
)
DIRECT = "Give only the value, in [ANSWER] and [/ANSWER] tags."
COT = "Execute the program step by step first, then give only the value in [ANSWER] and [/ANSWER] tags."

PROMPTS = {"sys_0shot": f"{TASK} {DIRECT}", "sys_cot": f"{TASK} {COT}"}
FEW_SHOT_EXAMPLES = 0  # no few-shot prompt: an example in one language would mislead the eighteen others
