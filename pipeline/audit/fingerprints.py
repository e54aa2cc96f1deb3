"""Toolchain fingerprints: text in a label that names the toolchain that printed it, not the program.

A link error quotes the compiler's version directory (`/usr/lib/gcc/x86_64-linux-gnu/9/`), the C
library's startup-code offsets (`Scrt1.o ... (.text+0x24)`: glibc 2.31 on Ubuntu 20.04; Debian bullseye's
2.31 gives +0x20, bookworm's 2.36 +0x17) and the name of the compiler's temporary object
(`/tmp/ccAbc123.o`, random on every compile). Two labels that differ only there show the same behaviour
under different toolchains: toolchain drift with the differing fingerprint quoted, never a reproduction
(the label's text is not what any environment of ours prints).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Fingerprint:
    kind: str
    pattern: re.Pattern[str]
    masked: str  # the replacement: the fingerprint's shape with its varying part blanked


FINGERPRINTS: tuple[Fingerprint, ...] = (
    # gcc's and libstdc++'s version directories; clang reaches gcc's through /usr/bin/../lib/gcc/...
    Fingerprint(
        "compiler version directory",
        re.compile(r"(/lib/gcc(?:-cross)?/[\w.-]+/)\d+(?:\.\d+)*/"),
        r"\1#/",
    ),
    Fingerprint("compiler version directory", re.compile(r"(/include/c\+\+/)\d+(?:\.\d+)*/"), r"\1#/"),
    Fingerprint(
        "compiler version directory",
        re.compile(r"(/llvm-)\d+(/lib/clang/)\d+(?:\.\d+)*/"),
        r"\1#\2#/",
    ),
    # `(.text+0x24)`, `(.text.startup+0x1a)`, `(.text._ZNSt6thread...[_ZNSt6thread...]+0x21)`
    Fingerprint("linker offset", re.compile(r"(\(\.[^\s()]*?\+)0x[0-9a-fA-F]+\)"), r"\g<1>0x#)"),
    # gcc: /tmp/ccXXXXXX.o; clang: /tmp/<source stem>-xxxxxx.o
    Fingerprint(
        "temporary object",
        re.compile(r"/tmp/(?:cc[A-Za-z0-9]{6}|[\w.+]+-[0-9a-f]{6})\.o\b"),
        "/tmp/#.o",
    ),
)


def mask_fingerprints(text: str) -> str:
    """The text with every fingerprint's varying part blanked (to compare what is left)."""
    for fingerprint in FINGERPRINTS:
        text = fingerprint.pattern.sub(fingerprint.masked, text)
    return text


def _found(text: str, fingerprint: Fingerprint) -> list[str]:
    return list(dict.fromkeys(match.group(0) for match in fingerprint.pattern.finditer(text)))


def differing_fingerprints(ours: str, gt: str) -> list[str]:
    """Each fingerprint that differs between the labels, quoted from both: `label` vs `ours`."""
    quoted = []
    for fingerprint in FINGERPRINTS:
        in_gt, in_ours = _found(gt, fingerprint), _found(ours, fingerprint)
        if in_gt != in_ours:
            quoted.append(f"{fingerprint.kind} {_quote(in_gt)} in the label vs {_quote(in_ours)} in ours")
    return quoted


def _quote(values: list[str], most: int = 3) -> str:
    if not values:
        return "none"
    shown = ", ".join(f"`{value}`" for value in values[:most])
    return shown + (f" (+{len(values) - most} more)" if len(values) > most else "")
