from dataclasses import dataclass

from pipeline.records import Language
from sandboxes.languages.base import NativeSpec


@dataclass(frozen=True)
class RustSpec(NativeSpec):
    """rustc spells the standard as an edition and -O as a codegen option."""

    def optimization_flag(self, level: str) -> str:
        return f"-Copt-level={ {'O0': '0', 'O1': '1', 'O2': '2', 'O3': '3', 'Os': 's'}[level] }"


SPEC = RustSpec(
    language=Language.RUST,
    source_name="test.rs",
    extensions=(".rs",),
    default_tool="rustc",
    default_standard="2021",
    std_flag="--edition={}",
    apt_packages={"rustc": "rustc"},
    artifacts=("test",),
    self_test='fn main() { println!("surge self-test"); }\n',
)
