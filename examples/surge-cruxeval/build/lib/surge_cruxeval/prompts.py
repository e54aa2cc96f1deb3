"""CRUXEval's output-prediction prompts, as system messages beside the record's problem block.

The wording and examples are upstream's (prompts.py of facebookresearch/cruxeval at commit 10d71b4, MIT):
``make_direct_output_prompt`` (two examples) and ``make_cot_output_prompt`` (one worked example). Upstream
sends one completion prompt ending in the problem block; `surge predict` sends a system message and the
record's question (the same ``[PYTHON] ... [/PYTHON]`` block) as the user message, so the instructions and
examples are the system message here. The zero-shot prompt is the direct one without its examples, which
upstream does not have; the few-shot one is upstream's direct prompt.
"""

from __future__ import annotations

TASK = (
    "You are given a Python function and an assertion containing an input to the function. Complete the "
    "assertion with a literal (no unsimplified expressions, no function calls) containing the output when "
    "executing the provided code on the given input, even if the function is incorrect or incomplete. Do NOT "
    "output any extra information."
)
DIRECT = "Provide the full assertion with the correct output in [ANSWER] and [/ANSWER] tags"
COT = (
    "Execute the program step by step before arriving at an answer, and provide the full assertion with the "
    "correct output in [ANSWER] and [/ANSWER] tags"
)
FOLLOWING = ", following the examples."

DIRECT_EXAMPLES = """[PYTHON]
def f(n):
    return n
assert f(17) == ??
[/PYTHON]
[ANSWER]
assert f(17) == 17
[/ANSWER]

[PYTHON]
def f(s):
    return s + "a"
assert f("x9j") == ??
[/PYTHON]
[ANSWER]
assert f("x9j") == "x9ja"
[/ANSWER]"""

COT_EXAMPLE = """[PYTHON]
def f(s):
    s = s + s
    return "b" + s + "a"
assert f("hi") == ??
[/PYTHON]
[THOUGHT]
Let's execute the code step by step:

1. The function f is defined, which takes a single argument s.
2. The function is called with the argument "hi", so within the function, s is initially "hi".
3. Inside the function, s is concatenated with itself, so s becomes "hihi".
4. The function then returns a new string that starts with "b", followed by the value of s (which is now "hihi"), and ends with "a".
5. The return value of the function is therefore "bhihia".
[/THOUGHT]
[ANSWER]
assert f("hi") == "bhihia"
[/ANSWER]"""  # noqa: E501 - upstream's line, verbatim

FEW_SHOT_EXAMPLES = 2  # upstream's direct prompt

# The fields surge predict reads (`--prompt zero-shot|few-shot|cot`), as SURGE's records name them.
PROMPTS = {
    "sys_0shot": f"{TASK} {DIRECT}.",
    "sys_3shot": f"{TASK} {DIRECT}{FOLLOWING}\n\n{DIRECT_EXAMPLES}",
    "sys_cot": f"{TASK} {COT}{FOLLOWING}\n\n{COT_EXAMPLE}",
}
