from __future__ import annotations

from pipeline.vocabulary import Language
from sandboxes.languages.base import LanguageSpec

# Shell programs (CRUXEval-X's `sh`, MultiPL-E's and McEval's "Shell") are bash scripts: they use
# arrays and `[[ ]]`, which Debian's /bin/sh (dash) has not.
SPEC = LanguageSpec(
    language=Language("bash"),
    display_name="Bash",
    aliases=("sh", "shell"),
    refactor_file="main.sh",
    entry_hint="top-level commands",
    fence_tags=("bash", "sh", "shell"),
    line_comments=("#",),
    setup_packages=("bash",),
    image_family="bash",
    image_packages={"bookworm": ("bash",)},
    image_suite="bookworm",  # no SURGE label is in Bash: no older suite to match, every profile runs it
    source_name="test.sh",
    extensions=(".sh", ".bash"),
    default_tool="bash",
    apt_packages={"bash": "bash"},
    self_test='echo "surge self-test"\n',
)
