from __future__ import annotations

import pytest

from pipeline.audit.causes import code_nondeterminism, run_to_run_causes
from pipeline.audit.classify import Evidence, classify, compare_labels
from pipeline.audit.rows import AuditClass
from pipeline.records import Language, Program, Verdict
from tests.audit.fakes import make_result

CLANG_LABEL = "test.cpp:7:5: error: use of undeclared identifier 'printf'\n"
GCC_LABEL = (
    "Compilation Error: /app/test.cpp: In function 'int main()':\n"
    "/app/test.cpp:47:13: error: expected '}' at end of input\n"
    "   47 |     return 0;\n      |             ^\n"
)


@pytest.mark.parametrize(
    ("ours", "gt", "expected"),
    [
        ("4\n", "4", AuditClass.EXACT),
        # numpy wraps lines at a different width: only the whitespace moved
        (
            "['1.0e+00' '2.0e+00' '3.0e+00'\n '4.0e+00']",
            "['1.0e+00' '2.0e+00'\n '3.0e+00' '4.0e+00']",
            AuditClass.NORMALISED,
        ),
        # gcc under a UTF-8 locale quotes with ‘ ’ where the label has ASCII quotes
        (GCC_LABEL.replace("'int main()'", "‘int main()’"), GCC_LABEL, AuditClass.NORMALISED),
        # column number off by one between gcc versions
        (GCC_LABEL.replace("47:13", "47:14"), GCC_LABEL, AuditClass.TOOLCHAIN_DRIFT),
        # python 3.11 carets under a 3.9 traceback
        (
            'Traceback (most recent call last):\n  File "/app/test.py", line 3, in <module>\n    f(1, 2)\n'
            "    ^^^^^^^\nTypeError: f() takes 1 positional argument but 2 were given\n",
            'Traceback (most recent call last):\n  File "/app/test.py", line 3, in <module>\n    f(1, 2)\n'
            "TypeError: f() takes 1 positional argument but 2 were given\n",
            AuditClass.TOOLCHAIN_DRIFT,
        ),
        # clang 19 gutters vs clang 14 without them
        (
            CLANG_LABEL + "    7 |     printf(x);\n      |     ^\n1 error generated.\n",
            CLANG_LABEL + "    printf(x);\n    ^\n1 error generated.\n",
            AuditClass.TOOLCHAIN_DRIFT,
        ),
        ("February 5, 2024 is a Monday", "二月 5, 2024 is a 星期一", AuditClass.LOCALE_DRIFT),
        ("3,14", "3.14", AuditClass.LOCALE_DRIFT),
        ("[0, 1]", "[1, 0]", AuditClass.MISMATCH),
        # a diagnostic on one side only is a real disagreement
        ("12\n", GCC_LABEL, AuditClass.MISMATCH),
    ],
)
def test_compare_labels(ours: str, gt: str, expected: AuditClass) -> None:
    assert compare_labels(ours, gt).audit_class is expected


def test_mismatch_keeps_a_short_diff() -> None:
    verdict = compare_labels("1\n2\n", "1\n3\n")
    assert "-3" in verdict.evidence and "+2" in verdict.evidence


def test_run_facts_come_first() -> None:
    missing = make_result(
        "", Verdict.TOOLCHAIN_MISSING, language=Language.JULIA, detail="julia not found on PATH"
    )
    verdict = classify(missing, "42")
    assert verdict.audit_class is AuditClass.NOT_RUN and "julia" in verdict.reason
    assert classify(make_result("", Verdict.WALL_TIME_LIMIT), "42").audit_class is AuditClass.TIMEOUT
    nondet = classify(make_result("0x7ffd", distinct_outputs=2), "0x7ffe")
    assert nondet.audit_class is AuditClass.NON_DETERMINISTIC and "2 distinct outputs" in nondet.reason
    assert classify(make_result("42\n"), "42").audit_class is AuditClass.EXACT


def test_normalised_says_what_was_normalised() -> None:
    wrapped = compare_labels("['1.0' '2.0' '3.0']\n", "['1.0' '2.0'\n '3.0']")
    assert (wrapped.audit_class, wrapped.reason) == (AuditClass.NORMALISED, "line wrapping")
    quoted = compare_labels("In function ‘f’", "In function 'f'")
    assert (quoted.audit_class, quoted.reason) == (AuditClass.NORMALISED, "quote style")
    spaced = compare_labels("a  b", "a b")
    assert (spaced.audit_class, spaced.reason) == (AuditClass.NORMALISED, "whitespace")


def test_a_limit_hit_on_some_repeats_only_is_non_determinism_not_a_timeout() -> None:
    sometimes = make_result("", Verdict.WALL_TIME_LIMIT, distinct_outputs=2).model_copy(
        update={"varied": ("exit_code", "signal", "verdict")}
    )
    verdict = classify(sometimes, "done")
    assert verdict.audit_class is AuditClass.NON_DETERMINISTIC
    assert "exit_code, signal, verdict varied" in verdict.reason


def test_disagreeing_repeats_name_where_in_the_code_the_variation_comes_from() -> None:
    varied = make_result("0.6000000000000001\n", distinct_outputs=2)
    named = classify(varied, "0.6", Evidence(varies_by=("a set's iteration order: `set(`",)))
    assert named.audit_class is AuditClass.NON_DETERMINISTIC
    assert named.reason.startswith("2 distinct outputs in 2 runs; from the code: a set's iteration order")
    unnamed = classify(varied, "0.6")
    assert "nothing in the code names a cause" in unnamed.reason


def test_run_to_run_causes_quote_hashing_order_and_threads_only_beside_the_suspicions() -> None:
    summed = Program.single(Language.PYTHON, "w = {'a': .1, 'b': .2}\nprint(sum(w[k] for k in set(w)))\n")
    (cause,) = run_to_run_causes(summed)
    assert "hash seed (PYTHONHASHSEED)" in cause and cause.endswith("`set(`")
    assert code_nondeterminism(summed) == []  # never a suspicion against a label whose repeats agree
    threaded = Program.single(Language.PYTHON, "import random, threading\nprint(random.random())\n")
    causes = run_to_run_causes(threaded)
    assert causes[0].startswith("unseeded random") and causes[1].startswith("threads or processes")
