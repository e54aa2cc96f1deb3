from __future__ import annotations

from pipeline.vocabulary import Language
from sandboxes.languages.base import LanguageSpec

SPEC = LanguageSpec(
    language=Language.JAVASCRIPT,
    display_name="JavaScript",
    aliases=("js", "node"),
    refactor_file="main.js",
    entry_hint="top-level code run by node",
    fence_tags=("javascript", "js", "node", "nodejs"),
    line_comments=("//",),
    block_comments=(("/*", "*/"),),
    setup_packages=("nodejs",),
    image_family="javascript",
    image_packages={"bookworm": ("nodejs",), "bullseye": ("nodejs",)},
    source_name="test.js",
    extensions=(".js", ".mjs"),
    default_tool="node",
    apt_packages={"node": "nodejs"},
    memory_rlimit="none",  # V8 maps its heap cage writable-reserved: RLIMIT_DATA refuses to start node
    self_test='console.log("surge self-test");\n',
)
