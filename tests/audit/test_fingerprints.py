"""Toolchain fingerprints (compiler version directories, linker offsets, temporary object names) are
drift with the fingerprint quoted, never a reproduction; anything else that differs stays a mismatch.

The labels are real link errors: Debian bullseye's (gcc 10, glibc 2.31) as our side, and the same with
an Ubuntu 20.04 fingerprint (gcc 9, Scrt1.o at +0x24) as the label's, as SURGE's dr labels carry them.
"""

from __future__ import annotations

import pytest

from pipeline.audit.classify import classify, compare_labels
from pipeline.audit.fingerprints import differing_fingerprints, mask_fingerprints
from pipeline.audit.rows import AuditClass
from pipeline.records import Verdict
from tests.audit.fakes import make_result

NO_MAIN = (
    "/usr/bin/ld: /usr/lib/gcc/x86_64-linux-gnu/10/../../../x86_64-linux-gnu/Scrt1.o: in function `_start':\n"
    "(.text+0x20): undefined reference to `main'\n"
    "collect2: error: ld returned 1 exit status\n"
)
PTHREAD = (
    "/usr/bin/ld: /tmp/ccyHCk3P.o: in function `std::thread::thread<main::{lambda()#1}, , void>"
    "(main::{lambda()#1}&&)':\n"
    "test.cpp:(.text+0x9c): undefined reference to `pthread_create'\n"
    "collect2: error: ld returned 1 exit status\n"
)
CLANG_PTHREAD = (
    "/usr/bin/ld: /tmp/test-992772.o: in function `std::thread::thread<main::$_0, , void>(main::$_0&&)':\n"
    "test.cpp:(.text._ZNSt6threadC2IZ4mainE3$_0JEvEEOT_DpOT0_+0x80): "
    "undefined reference to `pthread_create'\n"
    "clang: error: linker command failed with exit code 1 (use -v to see invocation)\n"
)
HEADER = "/usr/include/c++/10/bits/stl_vector.h:1046:2: note: in instantiation of member function\n"


@pytest.mark.parametrize(
    ("ours", "gt", "kind", "quoted"),
    [
        (NO_MAIN, NO_MAIN.replace("/10/", "/9/"), "compiler version directory", "/x86_64-linux-gnu/9/"),
        (NO_MAIN, NO_MAIN.replace("0x20", "0x24"), "linker offset", "`(.text+0x24)`"),
        (PTHREAD, PTHREAD.replace("ccyHCk3P", "ccAbc123"), "temporary object", "`/tmp/ccAbc123.o`"),
        (CLANG_PTHREAD, CLANG_PTHREAD.replace("992772", "5e8d0f"), "temporary object", "/tmp/test-5e8d0f.o"),
        (CLANG_PTHREAD, CLANG_PTHREAD.replace("+0x80", "+0x6a"), "linker offset", "+0x6a)`"),
        (HEADER, HEADER.replace("c++/10/", "c++/9/"), "compiler version directory", "/include/c++/9/"),
    ],
)
def test_each_fingerprint_is_drift_quoted(ours: str, gt: str, kind: str, quoted: str) -> None:
    verdict = compare_labels(ours, gt)
    assert verdict.audit_class is AuditClass.TOOLCHAIN_DRIFT
    assert kind in verdict.reason and quoted in verdict.reason, verdict.reason


def test_the_label_and_our_fingerprint_are_both_quoted() -> None:
    focal = NO_MAIN.replace("/10/", "/9/").replace("0x20", "0x24")
    reason = compare_labels(NO_MAIN, focal).reason
    assert "`(.text+0x24)` in the label vs `(.text+0x20)` in ours" in reason
    assert "/x86_64-linux-gnu/9/` in the label" in reason and "/x86_64-linux-gnu/10/` in ours" in reason


@pytest.mark.parametrize(
    ("ours", "gt"),
    [
        # another missing symbol under the same fingerprints
        (PTHREAD, PTHREAD.replace("pthread_create", "pthread_join")),
        # a fingerprint differs and so does the symbol: the fingerprint does not excuse the rest
        (PTHREAD, PTHREAD.replace("ccyHCk3P", "ccAbc123").replace("pthread_create", "pthread_join")),
        (NO_MAIN, NO_MAIN.replace("/10/", "/9/").replace("`main'", "`mian'")),
        # a fingerprint on one side only is not the same text with another toolchain's stamp
        (PTHREAD, PTHREAD.replace("/tmp/ccyHCk3P.o", "test.o")),
        # program output that merely looks like an offset or a path still has to agree
        ("(.text+0x20)\n", "(.text+0x24)\n"),
    ],
)
def test_anything_else_stays_a_mismatch(ours: str, gt: str) -> None:
    assert compare_labels(ours, gt).audit_class is AuditClass.MISMATCH


def test_drift_is_never_a_reproduction() -> None:
    stamped = PTHREAD.replace("ccyHCk3P", "ccAbc123").replace("0x9c", "0x24")
    result = make_result(PTHREAD, Verdict.COMPILE_ERROR)
    verdict = classify(result, stamped)
    assert verdict.audit_class is AuditClass.TOOLCHAIN_DRIFT
    assert verdict.audit_class not in (AuditClass.EXACT, AuditClass.NORMALISED)
    assert "+0x24" in verdict.evidence  # the diff keeps the label's own text


def test_fingerprints_and_diagnostics_together_quote_the_fingerprints() -> None:
    ours = "test.cpp:7:5: error: 'x' was not declared\n" + HEADER
    gt = "test.cpp:7:6: error: 'x' was not declared\n" + HEADER.replace("c++/10/", "c++/9/")
    verdict = compare_labels(ours, gt)
    assert verdict.audit_class is AuditClass.TOOLCHAIN_DRIFT
    assert "diagnostics" in verdict.reason and "/include/c++/9/" in verdict.reason


def test_masking_keeps_the_shape() -> None:
    assert mask_fingerprints(NO_MAIN) == mask_fingerprints(NO_MAIN.replace("/10/", "/9/").replace("20", "24"))
    assert "/usr/lib/gcc/x86_64-linux-gnu/#/" in mask_fingerprints(NO_MAIN)
    assert differing_fingerprints(PTHREAD, PTHREAD) == []
