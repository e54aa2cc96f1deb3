from __future__ import annotations

from pipeline.vocabulary import Language
from sandboxes.languages.base import LanguageSpec

# Rscript runs a file as R's own interpreter would, with the default packages (stats, utils, methods)
# attached, as CRUXEval-X's R programs expect.
SPEC = LanguageSpec(
    language=Language("r"),
    display_name="R",
    aliases=(),
    refactor_file="main.R",
    entry_hint="top-level code run by Rscript",
    fence_tags=("r",),
    line_comments=("#",),
    setup_packages=("r-base-core",),
    image_family="r",
    image_packages={"bookworm": ("r-base-core",)},
    image_suite="bookworm",  # no SURGE label is in R: no older suite to match, every profile runs it
    source_name="test.R",
    extensions=(".R", ".r"),
    default_tool="Rscript",
    apt_packages={"Rscript": "r-base-core"},
    self_test='cat("surge self-test\\n")\n',
)
