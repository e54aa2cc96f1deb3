"""The leak guard (pipeline.leakage.guard) on the shapes SURGE's released programs show.

cl: `# Output: 4`, ml: `expected = ...`.
"""

from __future__ import annotations

from pipeline.leakage import clean_comments, split_comment
from pipeline.leakage import guard as find_leaks
from pipeline.records import Language


def kinds(source: str, language: Language, output: str | None = None) -> list[tuple[str, int, bool]]:
    return [(leak.kind, leak.line, leak.cleanable) for leak in find_leaks(source, language, output)]


def test_claims_in_comments_are_found_and_cut_while_documentation_stays() -> None:
    source = "def f(xs):\n    # returns the sum\n    return sum(xs)\n\nprint(f([1, 3]))  # Output: 4\n"
    assert kinds(source, Language.PYTHON) == [("comment", 5, True)]
    cleaned = clean_comments(source, Language.PYTHON, find_leaks(source, Language.PYTHON))
    assert cleaned == "def f(xs):\n    # returns the sum\n    return sum(xs)\n\nprint(f([1, 3]))\n"


def test_c_like_comments_with_the_printed_output_are_found_even_without_a_claim_word() -> None:
    source = '#include <cstdio>\nint main() {\n    printf("%d\\n", 6 * 7);  // 42 here\n}\n'
    assert kinds(source, Language.CPP, "42\n") == []  # a bare short number is not evidence...
    assert kinds(source.replace("42 here", "prints 42"), Language.CPP, "42\n") == [("comment", 3, True)]
    long_output = "hello, world"
    assert kinds(f"// {long_output}\nint main() {{}}\n", Language.CPP, long_output) == [("comment", 1, True)]


def test_asserts_expected_names_and_result_strings_cannot_be_cut() -> None:
    source = 'int main() {\n    const char* expected_answers = "DDDBA";\n    assert(f() == 3);\n}\n'
    assert kinds(source, Language.C, "DDDBA") == [
        ("expected_name", 2, False),
        ("string", 2, False),
        ("assert", 3, False),
    ]
    assert kinds('print("DDDBA")\n', Language.PYTHON, "DDDBA") == []  # printing a constant is the program


def test_a_doctest_example_showing_the_printed_result_is_removed() -> None:
    source = (
        'def t(x):\n    """Decimal part.\n    >>> t(3.5)\n    0.5\n    """\n    return x % 1.0\n\n'
        "print(t(3.5))\n"
    )
    found = find_leaks(source, Language.PYTHON, "0.5\n")
    assert [(leak.kind, leak.line) for leak in found] == [("doctest", 3), ("doctest", 4)]
    assert ">>>" not in clean_comments(source, Language.PYTHON, found)


def test_comment_markers_inside_strings_are_not_comments() -> None:
    assert split_comment('print("# not a comment")  # Expected: 13', Language.PYTHON) == (
        'print("# not a comment")  ',
        "# Expected: 13",
    )
    assert split_comment('s = "http://x"; // note', Language.JAVASCRIPT) == ('s = "http://x"; ', "// note")
