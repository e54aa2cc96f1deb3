from __future__ import annotations

from dataclasses import dataclass

from pipeline.vocabulary import Language
from sandboxes.languages.base import AcceptedSettings, NativeSpec


@dataclass(frozen=True)
class RustSpec(NativeSpec):
    """rustc spells the standard as an edition and -O as a codegen option."""

    def optimization_flag(self, level: str) -> str:
        return f"-Copt-level={ {'O0': '0', 'O1': '1', 'O2': '2', 'O3': '3', 'Os': 's'}[level] }"


SPEC = RustSpec(
    language=Language.RUST,
    display_name="Rust",
    aliases=("rs",),
    refactor_file="main.rs",
    entry_hint="`fn main()`",
    fence_tags=("rust", "rs"),
    line_comments=("//",),
    block_comments=(("/*", "*/"),),
    # Debian's rustc, so the sandbox never needs the host's ~/.rustup
    setup_packages=("rustc",),
    image_family="rust",
    image_packages={"bookworm": ("rustc",), "bullseye": ("rustc",)},
    source_name="test.rs",
    extensions=(".rs",),
    default_tool="rustc",
    default_standard="2021",
    std_flag="--edition={}",
    apt_packages={"rustc": "rustc"},
    # editions: 2024 needs rustc 1.85, newer than Debian 12's
    settings=AcceptedSettings.native(compilers=("rustc",), standards=("2015", "2018", "2021")),
    artifacts=("test",),
    self_test='fn main() { println!("surge self-test"); }\n',
)
