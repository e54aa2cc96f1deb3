"""pyver: Python programs whose output differs between the Python versions of the two image suites;
label: stdout. Not part of SURGE's release: the example of a new subset (docs/build.md, "Adding a subset").

Everything the subset needs is in this file plus its ``register_subset`` line in
``pipeline/subsets/__init__.py``: the templates (seeded parameters), how an instance is planned
(``plan_item``), how a batch is built (``build_batch``: dr's differential filter over two profiles
instead of 40 compiler settings), how a record becomes a program again for the audit (``to_program``)
and how a label and a prediction are scored (exact match of the stdout, as ml's).

Each instance runs twice under ``current`` (bookworm images, Python 3.11) and ``surge-repro`` (bullseye
images, Python 3.9). Dropped, with the reason: a run that fails or hits a limit, an output that changes
between repeats, or the same output under both profiles. A kept program gives one row per profile
(the labels differ by construction), with ``custom_features.key`` = the profile that printed the label:
audit a row under that profile to reproduce it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from pipeline.build.differential import build_differential
from pipeline.build.failures import Built
from pipeline.build.plan import template_item
from pipeline.build.records import BuildConfig, BuildItem
from pipeline.records import LabelProtocol, Language, Program
from pipeline.scoring.metrics import exact_match, fixed
from pipeline.scoring.surge_eval import exact_extracted
from pipeline.subsets.base import ConstructionMethod, ProgramPlan, SubsetSpec, per_index
from pipeline.subsets.programs import origin
from pipeline.templates import instance_rng
from sources.surge_release import ReleasedRecord

if (
    TYPE_CHECKING
):  # annotations only: Arrow (pipeline.store) loads when a build runs, not when the registry does
    from pipeline.store import Store

PROFILES = ("current", "surge-repro")  # bookworm (Python 3.11), bullseye (Python 3.9)
NAMES = ("alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta")


def _int_enum(rng: random.Random) -> str:
    # 3.11: IntEnum's str() and format() are the int's; 3.9: format() is the int, str() the member name.
    names = rng.sample([n.upper() for n in NAMES], 3)
    values = rng.sample(range(1, 50), 3)
    members = "\n".join(f"    {n} = {v}" for n, v in zip(names, values, strict=True))
    return (
        f"import enum\n\n\nclass Level(enum.IntEnum):\n{members}\n\n\n"
        f"for level in sorted(Level):\n    print(str(level), f'{{level}}', level + {rng.randint(1, 9)})\n"
    )


def _isoformat(rng: random.Random) -> str:
    # 3.11 reads the 'Z' suffix and basic formats; 3.9 reads only what isoformat() writes.
    stamp = f"{rng.randint(1990, 2030)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    time = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00"
    text = rng.choice([f"{stamp}T{time}Z", f"{stamp.replace('-', '')}T{time.replace(':', '')}"])
    return (
        "from datetime import datetime\n\n"
        f"text = {text!r}\n"
        "try:\n    print(datetime.fromisoformat(text).isoformat())\n"
        "except ValueError as error:\n    print('ValueError:', error)\n"
    )


def _method_arity(rng: random.Random) -> str:
    # 3.10+ name the method with its class in the TypeError (`Box.put()`); 3.9 says `put()`.
    cls, method = rng.choice(NAMES).title(), rng.choice(["put", "add", "push", "store"])
    extra = rng.randint(1, 3)
    args = ", ".join(str(rng.randint(0, 9)) for _ in range(1 + extra))
    return (
        f"class {cls}:\n    def {method}(self, item):\n        return item\n\n\n"
        f"try:\n    print({cls}().{method}({args}))\n"
        "except TypeError as error:\n    print('TypeError:', error)\n"
    )


def _int_digits(rng: random.Random) -> str:
    # 3.11 limits int->str conversion to 4300 digits (CVE-2020-10735); bullseye's 3.9.2 has no limit.
    exponent = rng.randint(4400, 6000)
    return (
        f"number = {rng.randint(2, 9)} * 10 ** {exponent} + {rng.randint(1, 99)}\n"  # > 4300 digits
        "try:\n    text = str(number)\n    print(len(text), text[:12])\n"
        "except ValueError as error:\n    print('ValueError:', error)\n"
    )


def _control(rng: random.Random) -> str:
    # The same under both versions: the filter drops it (shows the filter working, and costs one run).
    values = [rng.randint(-99, 99) for _ in range(8)]
    return f"values = {values}\nprint(sorted(values), sum(values), max(values, key=abs))\n"


TEMPLATES: tuple[tuple[str, Callable[[random.Random], str]], ...] = (
    ("int_enum", _int_enum),
    ("isoformat", _isoformat),
    ("method_arity", _method_arity),
    ("int_digits", _int_digits),
    ("control", _control),
)


def program(text: str, index: str = "") -> Program:
    return Program.single(Language.PYTHON, text, origin={"subset": "pyver", "index": index})


def plan_item(config: BuildConfig, index: int) -> BuildItem:
    """Instance ``index``: template round robin, parameters from (seed, subset, index)."""
    name, render = TEMPLATES[index % len(TEMPLATES)]
    text = render(instance_rng(config.seed, config.subset, index))
    return template_item(config, index, name, program(text, str(index)), f"pipeline/subsets/pyver.py:{name}")


def build_batch(spec: SubsetSpec, store: Store, config: BuildConfig, items: list[BuildItem]) -> Built:
    """(outcomes, candidate rows, failures of ours): every item under both profiles, in one Docker batch."""
    return build_differential(spec, store, config, items, PROFILES)


def to_program(record: ReleasedRecord) -> ProgramPlan:
    plan_program = Program.single(Language.PYTHON, record.question, origin=origin(record))
    profile = str(record.custom_features.get("key", ""))
    note = f"label printed under profile {profile}" if profile else ""
    return ProgramPlan(language="python", program=plan_program, note=note)


SPEC = SubsetSpec(
    name="pyver",
    title="Python version differentials",
    category=9,
    category_key="custom_category",
    construction=ConstructionMethod.MANUAL_IMPLEMENTATION,
    release_size=25,  # not released: the default `surge build pyver` size
    protocol=LabelProtocol.STDOUT,
    feature_keys=("key", "environment", "template"),
    few_shot_examples=3,
    to_program=to_program,
    metric=fixed("exact_match", exact_match),  # stdout, as ml's: the label is the whole output
    score_prediction=exact_extracted,
    upstream_release=False,
    plan_items=per_index(plan_item),
    build_batch=build_batch,
)
