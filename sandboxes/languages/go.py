from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.vocabulary import Language
from sandboxes.languages.base import WORKDIR, AcceptedSettings, NativeSpec

if TYPE_CHECKING:  # the record types are annotations here: records read this registry
    from pipeline.records import EnvironmentProfile, ExecutionSetting, Program


@dataclass(frozen=True)
class GoSpec(NativeSpec):
    """`go build -o /app/test [flags] <sources>`: a `package main` program, built offline."""

    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        binary = f"{WORKDIR}/{self.binary}"
        return [
            self.tool(setting, profile),
            "build",
            "-o",
            binary,
            *setting.extra_flags,
            *self.sources(program, setting),
        ]


# The build never reaches the network and writes only under /tmp: no module proxy (GOPROXY=off), go.mod
# may be completed from what is there but nothing is downloaded (-mod=mod), a go.mod naming a newer Go
# never fetches that toolchain (GOTOOLCHAIN=local: Go 1.21 and later read it; 1.19 ignores it), and the
# build cache is the job's own (a fresh /tmp every program, so no build reuses another program's objects).
# CGO_ENABLED=0: pure Go needs no C toolchain in the image and gives a static binary. Debian's Go 1.19 ships
# its standard library precompiled with cgo, so a program importing `net` or `os/user` compiles those
# again (+2 s of CPU here); everything else links the precompiled packages (the self-test: 0.2 s of CPU).
SPEC = GoSpec(
    language=Language("go"),
    display_name="Go",
    aliases=("golang",),
    refactor_file="main.go",
    entry_hint="`func main()` in `package main`",
    fence_tags=("go", "golang"),
    line_comments=("//",),
    block_comments=(("/*", "*/"),),
    setup_packages=("golang-go",),
    image_family="go",
    image_packages={
        "bookworm": ("golang-go", "golang-1.19-go"),
        "bullseye": ("golang-go", "golang-1.15-go"),
    },
    source_name="test.go",
    extensions=(".go",),
    default_tool="go",
    apt_packages={"go": "golang-go"},
    artifacts=("test",),
    compile_env={
        "GOCACHE": "/tmp/go-build",
        "GOPATH": "/tmp/go",
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "CGO_ENABLED": "0",
    },
    version_flags={"go": "version"},
    # No -O levels (the gc compiler always optimises) and no -std (a module's go.mod says its version):
    # only flags, placed after `build` (-gcflags, -tags, ...; not -race, which needs cgo).
    settings=AcceptedSettings(compilers=("go",), extra_flags=True, relative_sources=True),
    self_test='package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("surge self-test") }\n',
)
