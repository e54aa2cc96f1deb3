from __future__ import annotations

from pipeline.vocabulary import Language
from sandboxes.languages.base import AcceptedSettings, NativeSpec

# The -std values g++ 12, clang++ 14 and clang++ 19 all take (SURGE's dr keys name C++03 to C++17;
# c++23 only from clang 17, so its draft name c++2b).
CPP_STANDARDS = tuple(
    f"{dialect}++{year}"
    for dialect in ("c", "gnu")
    for year in ("98", "03", "11", "14", "17", "20", "2a", "2b")
)

# Default C++17 without -O (= -O0): modern snippets (ml, cl) need C++17; SURGE's settings (dr keys, bg's
# `g++ -std=c++11`) come in through ExecutionSetting or a profile's "cpp-std". No -pthread: dr labels show
# `undefined reference to pthread_create`, so SURGE did not add it.
SPEC = NativeSpec(
    language=Language.CPP,
    display_name="C++",
    aliases=("c++", "cxx"),
    # OJCode's "C++14", which cl rows from it keep; the others as a next upstream may write them
    standard_spellings=("c++98", "c++03", "c++11", "c++14", "c++17", "c++20"),
    refactor_file="main.cpp",
    entry_hint="`int main()`",
    fence_tags=("cpp", "c++", "cc", "cxx", "hpp"),
    line_comments=("//",),
    block_comments=(("/*", "*/"),),
    # clang 19 prints the line gutters SURGE's dr labels show
    setup_packages=("g++", "clang", "clang-14", "clang-19"),
    image_family="cpp",
    image_packages={
        "bookworm": ("g++", "g++-12", "clang", "clang-14", "clang-19", "libc6-dev"),
        "bullseye": ("g++", "g++-10", "clang-16", "libc6-dev"),  # clang-16: the newest bullseye has
        # bullseye's gcc 9 and glibc 2.31, bookworm's clang-19 beside them (dockerfiles/cpp/Dockerfile.focal)
        "focal": ("gcc-9", "g++-9", "libc6-dev", "patchelf"),
    },
    alternative_tools=("clang++", "clang++-14", "clang++-16", "clang++-19"),
    source_name="test.cpp",
    extensions=(".cpp", ".cc", ".cxx"),
    default_tool="g++",
    default_standard="c++17",
    apt_packages={"g++": "g++", "clang++": "clang", "clang++-14": "clang-14", "clang++-19": "clang-19"},
    artifacts=("test",),
    link_flags=("-lm",),
    settings=AcceptedSettings.native(compilers=("g++", "clang++"), standards=CPP_STANDARDS),
    self_test='#include <iostream>\nint main() { std::cout << "surge self-test" << std::endl; }\n',
)
