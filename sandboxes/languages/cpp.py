from pipeline.records import Language
from sandboxes.languages.base import NativeSpec

# Default C++17 without -O (= -O0): modern snippets (ml, cl) need C++17; SURGE's settings (dr keys, bg's
# `g++ -std=c++11`) come in through ExecutionSetting or a profile's "cpp-std". No -pthread: dr labels show
# `undefined reference to pthread_create`, so SURGE did not add it.
SPEC = NativeSpec(
    language=Language.CPP,
    source_name="test.cpp",
    extensions=(".cpp", ".cc", ".cxx"),
    default_tool="g++",
    default_standard="c++17",
    apt_packages={"g++": "g++", "clang++": "clang", "clang++-14": "clang-14", "clang++-19": "clang-19"},
    artifacts=("test",),
    link_flags=("-lm",),
    self_test='#include <iostream>\nint main() { std::cout << "surge self-test" << std::endl; }\n',
)
