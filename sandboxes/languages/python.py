from pipeline.records import Language
from sandboxes.languages.base import LanguageSpec

SPEC = LanguageSpec(
    language=Language.PYTHON,
    source_name="test.py",
    extensions=(".py",),
    default_tool="python3",
    apt_packages={"python3": "python3"},
    run_env={"PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"},
    self_test='print("surge self-test")\n',
)
