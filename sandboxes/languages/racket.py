from __future__ import annotations

from pipeline.vocabulary import Language
from sandboxes.languages.base import LanguageSpec

# Debian's racket package is the whole distribution (minus its documentation), rackunit included.
# `racket <file>` requires the file as a module: a program starts with its `#lang` line.
SPEC = LanguageSpec(
    language=Language("racket"),
    display_name="Racket",
    aliases=("rkt",),
    refactor_file="main.rkt",
    entry_hint="the body of a `#lang racket` module",
    fence_tags=("racket", "rkt"),
    line_comments=(";",),
    block_comments=(("#|", "|#"),),
    setup_packages=("racket",),
    image_family="racket",
    image_packages={"bookworm": ("racket",)},
    image_suite="bookworm",  # no SURGE label is in Racket: no older suite to match, every profile runs it
    source_name="test.rkt",
    extensions=(".rkt",),
    default_tool="racket",
    apt_packages={"racket": "racket"},
    self_test='#lang racket/base\n(displayln "surge self-test")\n',
)
