from __future__ import annotations

from pipeline.vocabulary import Language
from sandboxes.languages.base import LanguageSpec

# php-cli is Debian's unversioned name for the current PHP's command line (8.2 in bookworm).
SPEC = LanguageSpec(
    language=Language("php"),
    display_name="PHP",
    aliases=(),
    refactor_file="main.php",
    entry_hint="top-level code after `<?php`",
    fence_tags=("php",),
    line_comments=("//", "#"),
    block_comments=(("/*", "*/"),),
    setup_packages=("php-cli",),
    image_family="php",
    image_packages={"bookworm": ("php-cli",)},
    image_suite="bookworm",  # no SURGE label is in PHP: no older suite to match, every profile runs it
    source_name="test.php",
    extensions=(".php",),
    default_tool="php",
    apt_packages={"php": "php-cli"},
    self_test='<?php\necho "surge self-test\\n";\n',
)
