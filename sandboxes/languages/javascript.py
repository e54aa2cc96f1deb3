from pipeline.records import Language
from sandboxes.languages.base import LanguageSpec

SPEC = LanguageSpec(
    language=Language.JAVASCRIPT,
    source_name="test.js",
    extensions=(".js", ".mjs"),
    default_tool="node",
    apt_packages={"node": "nodejs"},
    memory_rlimit="none",  # V8 maps its heap cage writable-reserved: RLIMIT_DATA refuses to start node
    self_test='console.log("surge self-test");\n',
)
