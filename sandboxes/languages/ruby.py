from __future__ import annotations

from pipeline.vocabulary import Language
from sandboxes.languages.base import LanguageSpec

# test/unit, which CRUXEval-X's Ruby programs require, is a gem bookworm's libruby3.1 bundles (test-unit
# 3.5.3 with power_assert): no ruby-test-unit package is needed.
SPEC = LanguageSpec(
    language=Language("ruby"),
    display_name="Ruby",
    aliases=("rb",),
    refactor_file="main.rb",
    entry_hint="top-level code",
    fence_tags=("ruby", "rb"),
    line_comments=("#",),
    block_comments=(("=begin", "=end"),),
    setup_packages=("ruby",),
    image_family="ruby",
    image_packages={"bookworm": ("ruby",)},
    image_suite="bookworm",  # no SURGE label is in Ruby: no older suite to match, every profile runs it
    source_name="test.rb",
    extensions=(".rb",),
    default_tool="ruby",
    apt_packages={"ruby": "ruby"},
    self_test='puts "surge self-test"\n',
)
