"""Property: whatever bytes a predictions file holds, the reader gives predictions or one InputError naming
the line, never another exception (a RecursionError once ended `surge score` with exit 70)."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.errors import InputError
from pipeline.scoring.predictions import Prediction, read_predictions
from pipeline.subsets import REGISTRY

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
subsets = st.sampled_from([*REGISTRY, "zz", ""]) | json_values
indices = st.integers(min_value=-2, max_value=4) | st.sampled_from([1.0, 1.5, "1", True, None]) | json_values
replies = st.text(max_size=12) | json_values
entries = st.fixed_dictionaries(
    {}, optional={"subset": subsets, "index": indices, "prediction": replies, "extra": json_values}
)
lines = st.one_of(
    entries.map(json.dumps),
    json_values.map(json.dumps),
    st.text(max_size=20),
    st.integers(min_value=1, max_value=50_000).map(lambda depth: "[" * depth),
    st.just(""),
)
CASES = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def read(data: bytes) -> list[Prediction] | InputError:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "predictions.jsonl"
        path.write_bytes(data)
        try:
            return read_predictions(path)
        except InputError as error:
            return error


def one_line(error: InputError) -> bool:
    return "\n" not in str(error) and "\n" not in error.hint


@CASES
@given(st.binary(max_size=200))
def test_any_bytes_give_predictions_or_one_input_error(data: bytes) -> None:
    result = read(data)
    assert isinstance(result, list) or one_line(result)


@CASES
@given(st.lists(lines, min_size=1, max_size=6))
def test_jsonl_gives_valid_predictions_or_the_first_bad_line(text_lines: list[str]) -> None:
    text = "\n".join(text_lines) + "\n"
    result = read(text.encode())
    if text.lstrip().startswith("["):
        return  # a JSON list: the whole file is one value (the other property covers it)
    if isinstance(result, list):
        keys = [(p.subset, p.index) for p in result]
        assert len(keys) == len(set(keys)) == sum(bool(line.strip()) for line in text.splitlines())
        assert all(p.subset in REGISTRY and type(p.index) is int and p.index >= 0 for p in result)
        return
    assert one_line(result)
    if "holds no predictions" in str(result):
        assert not text.strip()
        return
    number = int(re.search(r" line (\d+): ", str(result))[1])  # type: ignore[index]
    before = text.splitlines()[: number - 1]
    for earlier in filter(str.strip, before):  # every line before the one named reads on its own
        assert isinstance(read(earlier.encode()), list), (earlier, str(result))
