from pipeline.records import Language
from sandboxes.languages.base import LanguageSpec

# Spec and version probe only: proof checking against Mathlib (SURGE fl) is its own issue.
SPEC = LanguageSpec(
    language=Language.LEAN4,
    source_name="test.lean",
    extensions=(".lean",),
    default_tool="lean",
    apt_packages={"lean": "not in Debian 12: install elan from https://github.com/leanprover/elan"},
    memory_rlimit="none",
    self_test='def main : IO Unit := IO.println "surge self-test"\n#eval main\n',
)
