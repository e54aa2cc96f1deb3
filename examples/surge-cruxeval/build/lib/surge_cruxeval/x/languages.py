"""CRUXEval-X's nineteen languages, as data: for each upstream file, the sandbox language it runs as, how
its harness shows a failed check (a ``CheckConvention``), where its check keeps the expected value, how
its literals are spelled, its rules for altering an empty expected value, and what every real program of
it has (``marker``: prose where code should be has not).

A harness that needs other commands than its language's core spec (Java's ``-ea`` and the javatuples
classpath, C#'s ``DEBUG``, D's unittests, Go's ``go test``) runs as a harness language of this package's
(harness.py, registered through the ``surge.languages`` entry points); the others run as the core
language. Patterns are regular expressions searched with MULTILINE.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pipeline.subsets.checks import CheckConvention
from surge_cruxeval.x.locate import Lexicon, Locator

JAVATUPLES = "javatuples (Debian libjavatuples-java: /usr/share/java/javatuples.jar)"
C_LIKE = Lexicon(chars="'")
SCRIPT = Lexicon(quotes="'\"")
PYTHON_BOOLEANS = (("True", "False"), ("False", "True"))
R_BOOLEANS = (("TRUE", "FALSE"), ("FALSE", "TRUE"))
RACKET_BOOLEANS = (("#t", "#f"), ("#f", "#t"), ("#true", "#false"), ("#false", "#true"))
# a call's top-level comparison in C-family asserts: `assert(f(x) == (E))`, `assert(f(x).equals((E)))`
ASSERT_CALL = r"\bassert\s*\("


@dataclass(frozen=True)
class Harness:
    stem: str  # the upstream file's name: java.json
    language: str  # the core sandbox language reports name it by
    runs_as: str  # the sandbox language the program runs as (a harness language, or the core one)
    marker: str  # a pattern every real program of the language matches; prose does not
    locator: Locator
    lexicon: Lexicon
    convention: CheckConvention
    empties: tuple[tuple[str, str], ...] = ()  # (pattern of a whole empty expected value, its mutant)
    no_empty_rule: str = ""  # why the language has no rule for empty values, where it has none


def _failed(
    *patterns: str, missing: tuple[tuple[str, str], ...] = (), errors: bool = False
) -> CheckConvention:
    return CheckConvention(failed=patterns, missing=missing, error_is_failure=errors)


# JavaScript's programs and TypeScript's (compiled by tsc, run by node) check with node's assert alike.
NODE_ASSERT = Harness(
    stem="js",
    language="javascript",
    runs_as="javascript",
    marker=r"^\s*function\s+f\s*\(",
    locator=Locator(anchor=r"\bassert\.deepEqual\(", arg=1),
    lexicon=Lexicon(quotes="'\"`"),
    convention=_failed(r"^AssertionError\b"),
    empties=((r"\[\s*\]", "[0]"), (r"\{\s*\}", '{"!": 0}')),
)

HARNESSES = {
    harness.stem: harness
    for harness in (
        Harness(
            stem="py",
            language="python",
            runs_as="python",
            marker=r"^def f\s*\(",
            locator=Locator(anchor=r"^\s*assert\s+", after=("==",), line=True),
            lexicon=Lexicon(quotes="'\"", booleans=PYTHON_BOOLEANS, triple=True),
            convention=_failed(r"^AssertionError\b"),
            empties=((r"\[\s*\]", "[0]"), (r"\{\s*\}", "{0: 0}"), (r"\(\s*\)", "(0,)")),
        ),
        NODE_ASSERT,
        replace(NODE_ASSERT, stem="ts", language="typescript", runs_as="typescript"),
        Harness(
            stem="java",
            language="java",
            runs_as="cruxeval-java",
            marker=r"^\s*(?:public\s+|final\s+)*class\s+\w+",
            locator=Locator(anchor=ASSERT_CALL, after=(".equals", "==")),
            lexicon=C_LIKE,
            convention=_failed(
                r"java\.lang\.AssertionError",
                missing=(
                    (r"package org\.javatuples does not exist", JAVATUPLES),
                    (r"NoClassDefFoundError: org/javatuples", JAVATUPLES),
                ),
            ),
            empties=(
                (
                    r"new ArrayList<(.+)>\(Arrays\.asList\(\s*\)\)",
                    r"new ArrayList<\1>(Arrays.asList((\1)null))",
                ),
                (r"new ArrayList<(.+)>\(\s*\)", r"new ArrayList<\1>(Arrays.asList((\1)null))"),
            ),
        ),
        Harness(
            stem="cs",
            language="csharp",
            runs_as="cruxeval-csharp",
            marker=r"^\s*(?:public\s+|static\s+)*class\s+\w+",
            locator=Locator(anchor=r"\bDebug\.Assert\(", after=(".SequenceEqual", ".Equals", "==")),
            lexicon=C_LIKE,
            # mono prints a failed Debug.Assert (with MONO_TRACE_LISTENER=Console.Error) and exits 0
            convention=_failed(
                r"at System\.Diagnostics\.Debug\.Assert\b", r"^---- DEBUG ASSERTION FAILED ----"
            ),
            empties=((r"new List<(.+)>\(\s*\)", r"new List<\1>(new \1[1])"),),
        ),
        Harness(
            stem="cpp",
            language="cpp",
            runs_as="cruxeval-cpp",
            marker=r"^\s*#include\b",
            locator=Locator(anchor=ASSERT_CALL, after=("==",)),
            lexicon=C_LIKE,
            convention=_failed(r"Assertion .+ failed\."),
            empties=((r"std::vector<(.+)>\((?:\{\s*\})?\)", r"std::vector<\1>(1)"),),
        ),
        Harness(
            stem="d",
            language="d",
            runs_as="cruxeval-d",
            marker=r"^\s*unittest\b",
            locator=Locator(anchor=ASSERT_CALL, after=("==",)),
            lexicon=Lexicon(quotes='"', raw_quotes="`", chars="'"),
            # "test.d(14): [unittest] Assertion failure" without a trace handler (programs.py), else the
            # AssertError's own line
            convention=_failed(r"\[unittest\] Assertion failure", r"core\.exception\.AssertError@"),
            no_empty_rule="an empty D array literal takes its element type from the other side",
        ),
        Harness(
            stem="go",
            language="go",
            runs_as="cruxeval-go",
            marker=r"^\s*package\s+\w+",
            locator=Locator(anchor=r"\{(?=\s*actual:)", after=("expected:",)),
            lexicon=Lexicon(quotes='"', raw_quotes="`", chars="'"),
            convention=_failed(r"^\s*--- FAIL: TestF"),
            # the zero value of the slice's element type: valid Go whatever the type
            empties=((r"\[\](.+)\{\s*\}", r"[]\1{*new(\1)}"),),
        ),
        Harness(
            stem="jl",
            language="julia",
            runs_as="julia",
            marker=r"^\s*function\s+f\s*\(|^\s*f\s*\(.*\)\s*=",
            locator=Locator(anchor=r"@test\s*\(", after=("==",)),
            lexicon=Lexicon(quotes='"', chars="'"),
            convention=_failed(r"Test Failed at"),
            empties=((r"(.*)\(\[\s*\]\)", r"\1([0])"), (r"\[\s*\]", "[0]")),
        ),
        Harness(
            stem="lua",
            language="lua",
            runs_as="lua",
            marker=r"^\s*(?:local\s+)?function\s+f\s*\(|^\s*(?:local\s+)?f\s*=\s*function",
            locator=Locator(anchor=r"\blu\.assertEquals\(", arg=1),
            lexicon=SCRIPT,
            convention=_failed(
                r"^Failed tests:", missing=((r"module 'luaunit' not found", "luaunit (Debian lua-unit)"),)
            ),
            empties=((r"\{\s*\}", "{0}"),),
        ),
        Harness(
            stem="php",
            language="php",
            runs_as="php",
            marker=r"<\?php",
            locator=Locator(anchor=r"\bif\s*\((?=\s*candidate\()", after=("!==", "!=")),
            lexicon=SCRIPT,
            convention=_failed(r"Uncaught Exception: Test failed!"),
            empties=((r"array\(\s*\)", "array(0)"), (r"\[\s*\]", "[0]")),
        ),
        Harness(
            stem="pl",
            language="perl",
            runs_as="perl",
            marker=r"^\s*sub\s+f\b",
            locator=Locator(anchor=r"\beq_deeply\(", arg=1),
            lexicon=SCRIPT,
            # a failed check is `exit 1` with nothing printed: any run ending in an error failed it
            convention=_failed(
                missing=((r"Can't locate Test/Deep\.pm", "Test::Deep (Debian libtest-deep-perl)"),),
                errors=True,
            ),
            empties=((r"\[\s*\]", "[0]"), (r"\{\s*\}", "{0 => 0}")),
        ),
        Harness(
            stem="r",
            language="r",
            runs_as="r",
            marker=r"^\s*f\s*<-\s*function",
            locator=Locator(anchor=r"\ball\.equal\(", arg=1),
            lexicon=Lexicon(quotes="'\"", booleans=R_BOOLEANS),
            convention=_failed(r"is not TRUE$", r"are not all TRUE$"),
            empties=((r"c\(\s*\)", "c(0)"), (r"list\(\s*\)", "list(0)")),
        ),
        Harness(
            stem="rb",
            language="ruby",
            runs_as="ruby",
            marker=r"^\s*def\s+f\b",
            locator=Locator(anchor=r"\bassert_equal\(", arg=0),
            lexicon=SCRIPT,
            convention=_failed(
                r"^Failure:",
                missing=((r"cannot load such file -- test/unit", "test-unit (Debian ruby-test-unit)"),),
            ),
            empties=((r"\[\s*\]", "[0]"), (r"\{\s*\}", "{0 => 0}")),
        ),
        Harness(
            stem="rkt",
            language="racket",
            runs_as="racket",
            marker=r"^\s*#lang\s+racket",
            locator=Locator(anchor=r"\((?=check-within\b|check-equal\?)", sexp=2),
            lexicon=Lexicon(quotes='"', booleans=RACKET_BOOLEANS, lisp=True),
            # rackunit prints a failed check's report and the program goes on: it may still exit 0
            convention=_failed(
                r"^FAILURE$",
                missing=((r"collection not found\s+for module path: rackunit", "rackunit (Debian racket)"),),
            ),
            empties=((r"\(list\s*\)", "(list 0)"), (r"'\(\s*\)", "'(0)")),
        ),
        Harness(
            stem="rs",
            language="rust",
            runs_as="rust",
            marker=r"^\s*(?:pub\s+)?fn\s+f\b",
            locator=Locator(anchor=r"\bassert_eq!\(", arg=1),
            lexicon=C_LIKE,
            convention=_failed(r"assertion `left == right` failed", r"assertion failed: `\(left == right\)`"),
            empties=((r"Vec::<(.+)>::new\(\)", r"vec![<\1>::default()]"),),
        ),
        Harness(
            stem="scala",
            language="scala",
            runs_as="scala",
            marker=r"^\s*object\s+\w+",
            locator=Locator(anchor=ASSERT_CALL, after=(".equals", "==")),
            lexicon=C_LIKE,
            convention=_failed(r"java\.lang\.AssertionError: assertion failed"),
            empties=((r"List\[(.+)\]\(\s*\)", r"List[\1](null.asInstanceOf[\1])"),),
        ),
        Harness(
            stem="sh",
            language="bash",
            runs_as="bash",
            marker=r"^\s*(?:function\s+)?f\s*\(\s*\)",
            locator=Locator(anchor=r"\[\[\s*(?=\$\(candidate)", after=(" = ", " == ")),
            lexicon=Lexicon(quotes='"', raw_quotes="'"),
            # `[[ ... ]]` under `set -e`: a failed check ends the script with status 1 and prints nothing
            convention=_failed(errors=True),
            no_empty_rule="the shell's expected value is always a string",
        ),
        Harness(
            stem="swift",
            language="swift",
            runs_as="swift",
            marker=r"^\s*func\s+f\s*\(",
            locator=Locator(anchor=r"^assert\(", after=("==",)),
            lexicon=C_LIKE,
            convention=_failed(r"Assertion failed"),
            no_empty_rule="no Swift toolchain here proves a rule for `[] as [T]`",
        ),
    )
}
