"""The three system prompts of a SURGE record, rendered from versioned template files.

``templates/<subset>.v1.json`` holds the release's prompt text with ``<<name>>`` slots: the task line,
the answer format, the CoT line, the few-shot intro, one example's format, the separator between
examples and the closing line (sc, tc). ``faithful`` and ``corrected`` give the slot values that differ
where the release has a defect, and ``defects`` says each one in a sentence for the dataset card.
``sys_3shot`` is always ``sys_cot`` + intro + examples + outro, as in every released record.

Examples come from the same subset (and, for sc/tc, the same script; for rl, the same repository and run
instruction), never the item itself, chosen by a seeded order: one set per pool, as the release has one
set per subset, with the item's own slot filled by the next candidate when the item is in that set.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import Field

from pipeline.dataset import DatasetRow
from pipeline.errors import InputError
from pipeline.records import Frozen, content_id
from pipeline.subsets import subset_spec

TEMPLATES = Path(__file__).parent / "templates"
TEMPLATE_VERSION = 1
_SLOT = re.compile(r"<<(\w+)>>")
_DR_KEY = re.compile(r"^(?P<compiler>g\+\+|clang\+\+)-C\+\+(?P<std>\d\d)--(?P<opt>O[0-3s])$")
_RL_INPUT = re.compile(r"the input file is:.*?<start_file>(.*?)(?:<endfile>|<enfile>|<end_file>)", re.DOTALL)
_SC_COMMAND = re.compile(r"command:```\n(.*?)\n```", re.DOTALL)


class PromptTemplate(Frozen):
    subset: str
    version: int
    zero_shot: str
    cot: str
    few_shot_intro: str
    example: str
    example_separator: str
    few_shot_outro: str
    example_input: Literal["question", "question_with_setting", "command", "input_file"]
    example_output: Literal["gt"]
    pool_by: tuple[str, ...] = Field(description="custom_features keys that examples must share")
    faithful: dict[str, str] = Field(default_factory=dict, description="slot values reproducing defects")
    corrected: dict[str, str] = Field(default_factory=dict, description="the same slots, corrected")
    defects: tuple[str, ...] = ()


class Example(Frozen):
    input: str
    output: str


class Prompts(Frozen):
    sys_0shot: str
    sys_cot: str
    sys_3shot: str


GENERIC = "generic"  # the template of a subset of ours (SubsetSpec.upstream_release False), e.g. pyver


@cache
def load_template(subset: str, version: int = TEMPLATE_VERSION) -> PromptTemplate:
    path = TEMPLATES / f"{subset}.v{version}.json"
    if not path.exists() and not subset_spec(subset).upstream_release:
        path = TEMPLATES / f"{GENERIC}.v{version}.json"  # its own file, if it ships one, comes first
    if not path.exists():
        raise InputError(f"no prompt template {path.name}", hint=f"add {path} (see the other subsets')")
    return PromptTemplate.model_validate(json.loads(path.read_text(encoding="utf-8")))


SLOT_SOURCES = {
    "run_instruction": "custom_features.run_instruction",
    "domain": "DatasetRow.domain (the script's domain, e.g. 'pde')",
    "compiler": "custom_features.key like 'g++-C++17--O2'",
    "setting": "custom_features.environment or .key (generic template: what the program runs with)",
}


def fill(text: str, values: dict[str, str], keep: Sequence[str] = ()) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in keep:
            return match.group(0)
        if name not in values:
            source = SLOT_SOURCES.get(name, "a value for it")
            raise InputError(f"the prompt needs <<{name}>>, which the row lacks", hint=f"set {source}")
        return values[name]

    return _SLOT.sub(replace, text)


def slot_values(row: DatasetRow, template: PromptTemplate, faithful: bool) -> dict[str, str]:
    """The values a row's prompt needs: run command parts (dr), run instruction (rl), domain (sc, tc)."""
    values = dict(template.faithful if faithful else template.corrected)
    key = str(row.custom_features.get("key", ""))
    if match := _DR_KEY.match(key):
        # The release built the command from the key's dash-separated parts: `C++11`, then `O1` undashed.
        values["compiler"] = match["compiler"]
        values["std"] = f"C++{match['std']}" if faithful else match["std"]
        values["opt"] = match["opt"] if faithful else f"-{match['opt']}"
    if "run_instruction" in row.custom_features:
        values["run_instruction"] = str(row.custom_features["run_instruction"])
    if row.domain is not None:
        values["domain"] = row.domain
    if setting := row.custom_features.get("environment") or row.custom_features.get("key"):
        values["setting"] = str(setting)
    return values


def count_words(n: int) -> dict[str, str]:
    """The intro's count and the words that agree with it: a pool with one other row gets "Following is 1
    example", not "Following are 1 examples" (the release always has 3 or more, so it never shows)."""
    return {"n": str(n), "are": "is" if n == 1 else "are", "examples": "example" if n == 1 else "examples"}


def example_of(row: DatasetRow, template: PromptTemplate) -> Example:
    """A row as a few-shot example, in the form its subset's examples take."""
    kind = template.example_input
    if kind == "question":
        text = row.question
    elif kind == "question_with_setting":
        text = f"{row.question}\n(run with '{row.custom_features.get('key', '')}')"
    elif kind == "command":
        match = _SC_COMMAND.search(row.question)
        text = match.group(1) if match else row.question
    else:
        match = _RL_INPUT.search(row.question)
        text = match.group(1) if match else ""
    return Example(input=text, output=row.gt)


def render(
    row: DatasetRow, examples: Sequence[Example], faithful: bool, template: PromptTemplate | None = None
) -> Prompts:
    template = template or load_template(row.subset)
    values = slot_values(row, template, faithful)
    try:
        zero_shot, cot = fill(template.zero_shot, values), fill(template.cot, values)
    except InputError as error:
        raise InputError(f"{row.subset} row {row.upstream.key}: {error}", hint=error.hint) from None
    rendered = [
        fill(template.example, {**values, "i": str(i), "input": ex.input, "output": ex.output})
        for i, ex in enumerate(examples, start=1)
    ]
    few_shot = (
        fill(template.few_shot_intro, {**values, **count_words(len(examples))})
        + template.example_separator.join(rendered)
        + template.few_shot_outro
    )
    return Prompts(sys_0shot=zero_shot, sys_cot=cot, sys_3shot=cot + few_shot)


def parse_examples(row: DatasetRow, sys_3shot: str, faithful: bool = True) -> list[Example]:
    """The examples inside a rendered ``sys_3shot`` (the inverse of ``render``); raises InputError when the
    prompt does not have the template's structure."""
    template = load_template(row.subset)
    values = slot_values(row, template, faithful)
    cot = fill(template.cot, values)
    count = subset_spec(row.subset).few_shot_examples
    intro = fill(template.few_shot_intro, {**values, **count_words(count)})
    head = cot + intro
    if not sys_3shot.startswith(head) or not sys_3shot.endswith(template.few_shot_outro):
        raise InputError(
            f"{row.upstream.key}: sys_3shot does not open with the template's CoT prompt and intro"
        )
    body = sys_3shot[len(head) : len(sys_3shot) - len(template.few_shot_outro)]
    parts = [_example_parts(template, values, i) for i in range(1, count + 2)]
    examples, start = [], 0
    for i in range(count):
        prefix, middle, suffix = parts[i]
        last = i == count - 1
        end = len(body) if last else body.find(suffix + template.example_separator + parts[i + 1][0], start)
        chunk = body[start:end] if last else body[start : end + len(suffix)]
        if end < 0 or not chunk.startswith(prefix) or not chunk.endswith(suffix) or middle not in chunk:
            raise InputError(f"{row.upstream.key}: example {i + 1} of sys_3shot does not fit the template")
        inner = chunk[len(prefix) : len(chunk) - len(suffix)]
        text, output = inner.split(middle, 1)
        examples.append(Example(input=text, output=output))
        start = end + len(suffix) + len(template.example_separator)
    return examples


def _example_parts(template: PromptTemplate, values: dict[str, str], i: int) -> tuple[str, str, str]:
    filled = fill(template.example, {**values, "i": str(i)}, keep=("input", "output"))
    prefix, rest = filled.split("<<input>>", 1)
    middle, suffix = rest.split("<<output>>", 1)
    return prefix, middle, suffix


def pool_key(row: DatasetRow, template: PromptTemplate) -> str:
    return content_id(row.subset, [row.custom_features.get(name) for name in template.pool_by])


def choose_examples(rows: Sequence[DatasetRow], seed: int) -> dict[str, list[DatasetRow]]:
    """Each row's few-shot examples, by row_id: one seeded set per pool, never the row itself."""
    pools: dict[str, list[DatasetRow]] = {}
    for row in rows:
        pools.setdefault(pool_key(row, load_template(row.subset)), []).append(row)
    chosen: dict[str, list[DatasetRow]] = {}
    for members in pools.values():
        ordered = sorted(members, key=lambda r: content_id("few-shot", seed, r.row_id))
        count = subset_spec(members[0].subset).few_shot_examples
        for row in members:
            chosen[row.row_id] = [other for other in ordered if other.row_id != row.row_id][:count]
    return chosen
