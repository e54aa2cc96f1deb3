from pipeline.records import Language
from sandboxes.languages.base import LanguageSpec

# Debian 12 has no julia package: the hint points at the upstream installer.
SPEC = LanguageSpec(
    language=Language.JULIA,
    source_name="test.jl",
    extensions=(".jl",),
    default_tool="julia",
    apt_packages={"julia": "not in Debian 12: install juliaup from https://julialang.org/downloads/"},
    memory_rlimit="none",
    self_test='println("surge self-test")\n',
)
