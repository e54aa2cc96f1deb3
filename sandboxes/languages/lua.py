from __future__ import annotations

from pipeline.vocabulary import Language
from sandboxes.languages.base import LanguageSpec

# lua5.4 by name, not Debian's `lua` alternative, which points at whichever Lua was installed last.
# lua-unit is the luaunit module CRUXEval-X's Lua programs `require`; Debian ships it for 5.1 to 5.4.
SPEC = LanguageSpec(
    language=Language("lua"),
    display_name="Lua",
    aliases=("lua5.4",),
    refactor_file="main.lua",
    entry_hint="top-level code",
    fence_tags=("lua",),
    line_comments=("--",),
    block_comments=(("--[[", "]]"),),
    setup_packages=("lua5.4", "lua-unit"),
    image_family="lua",
    image_packages={"bookworm": ("lua5.4", "lua-unit")},
    image_suite="bookworm",  # no SURGE label is in Lua: no older suite to match, every profile runs it
    source_name="test.lua",
    extensions=(".lua",),
    default_tool="lua5.4",
    apt_packages={"lua5.4": "lua5.4"},
    self_test='print("surge self-test")\n',
)
