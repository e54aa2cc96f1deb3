from __future__ import annotations

import json
from pathlib import Path

from pipeline.leakage import find_leaks


def test_cl_sample_leaks_its_output_in_a_comment(samples: Path) -> None:
    records = json.loads((samples / "surge-released" / "cl.json").read_text())
    leaks = find_leaks(records[0]["question"], records[0]["gt"])
    assert leaks == ["comment line 19: # Output: 4"]
    assert find_leaks(records[2]["question"], records[2]["gt"]) == []


def test_short_answers_need_a_cue_or_an_assert() -> None:
    program = "x = 4  # four sides\nprint(x)\n"
    assert find_leaks(program, "4") == []
    assert find_leaks("print(f())  // Expected output: 13\n", "13") == [
        "comment line 1: // Expected output: 13"
    ]
    assert find_leaks("assert f(2) == 42\nprint(f(2))", "42") == ["assert line 1: assert f(2) == 42"]
    assert find_leaks("print(42)  # 421 is not it", "42") == []


def test_string_literal_equal_to_the_answer() -> None:
    program = 'const char* expected = "DDDBA";\nprintf("%s", f());\n'
    assert find_leaks(program, "DDDBA") == ['string literal line 1: "DDDBA"']


def test_preprocessor_lines_are_not_comments() -> None:
    assert find_leaks('#include <stdio.h>\nint main(){puts("x");}', "stdio.h") == []
