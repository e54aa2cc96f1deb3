from __future__ import annotations

from pipeline.vocabulary import Language
from sandboxes.languages.base import LanguageSpec

SPEC = LanguageSpec(
    language=Language.PYTHON,
    display_name="Python",
    aliases=("python3", "py"),
    refactor_file="main.py",
    entry_hint='top-level code or `if __name__ == "__main__":`',
    fence_tags=("python", "py", "python3"),
    line_comments=("#",),
    block_comments=(('"""', '"""'),),  # docstrings: where McEval's examples show their results
    setup_packages=("python3", "python3-numpy", "python3-scipy"),  # the numpy the sc/tc scripts import
    image_family="python",
    image_packages={"bookworm": ("python3", "python3-numpy"), "bullseye": ("python3", "python3-numpy")},
    source_name="test.py",
    extensions=(".py",),
    default_tool="python3",
    apt_packages={"python3": "python3"},
    run_env={"PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"},
    self_test='print("surge self-test")\n',
    # str hashes are salted per process: a set of strings iterates in another order each run
    seed_environment="PYTHONHASHSEED",
    seed_test='print(list({"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}))\n',
)
