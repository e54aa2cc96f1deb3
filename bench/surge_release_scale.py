"""A release in SURGE's format at SURGE's size, regrown here, to time `surge audit --profile all` on it.

    python bench/surge_release_scale.py OUT_FOLDER [--n N] [--seed SEED] [--wrong-every N]

SURGE's own release (1,160 records) is not in this repository and cannot be fetched here. What its audit
costs depends on its mix: tc's long scripts (SURGE's time bins put 30 of 150 at 1 s or more, 10 of them at
30 s or more), dr's compiles under 40 compiler settings, ml's and bg's compiled languages, a few hundred
short scripts. This script regrows that mix with the pipeline itself and exports it in SURGE's format:

- ml, cl and bg at SURGE's sizes from the generated stand-in upstreams (tests/standin), refactored through
  the stand-in endpoint and auto-approved (McEval's languages that run on this machine's toolchains: no
  Julia, which only the bullseye image has);
- sc, tc (SURGE's time bins, ``--time-mix surge``) and dr from the library's templates, rl from its sample
  repositories;
- no fl: its Lean checker is not on this machine (docs/lean.md).

OUT_FOLDER gets ``release/dataset/<subset>.json`` (`surge export`, SURGE's format) and the build's store
under ``build-store/``. Then time the audit into a fresh store, every profile on its own backend, and
split the time against the programs' own CPU:

    surge audit OUT_FOLDER/release/dataset --profile all --store STORE --json
    python bench/bench_audit_ideal.py --store STORE --wall-s SECONDS

``--n N`` builds N rows a subset instead of SURGE's sizes (a quick look at the whole path). Every label
of a regrown release reproduces, so its audit ends after its first round; SURGE's own has labels that do
not reproduce at first, and their later rounds (repeats, then every other profile, the image profiles on
Docker) are part of its cost. ``--wrong-every N`` changes every N-th label of each file so that those
rounds run too.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import timed_surge  # noqa: E402

from tests.standin.server import MODEL, StandInServer  # noqa: E402
from tests.standin.upstreams import generate  # noqa: E402

REFACTORED = ("ml", "cl", "bg")  # from the stand-in's upstreams, through its endpoint
FROM_THE_LIBRARY = ("sc", "tc", "dr", "rl")  # templates and bundled repositories: no --items
TIMEOUT_S = 4 * 3600
WRONG_SUFFIX = "\n(made wrong by surge_release_scale.py --wrong-every)"


def surge(argv: list[str], cwd: Path) -> dict:
    """`surge ARGV --json` to its end, timed (said on stderr); a failure stops the script with its output."""
    try:
        elapsed, summary = timed_surge([*argv, "--json"], cwd, TIMEOUT_S)
    except RuntimeError as failed:
        raise SystemExit(str(failed)) from None
    print(f"surge {argv[0]}: {elapsed:.0f} s", file=sys.stderr)
    return summary


def make_wrong(dataset: Path, every: int) -> int:
    """Every `every`-th label of each subset file changed so that it cannot reproduce: how many."""
    changed = 0
    for path in sorted(dataset.glob("*.json")):
        records = json.loads(path.read_text(encoding="utf-8"))
        for record in records[every - 1 :: every]:
            record["gt"] = f"{record['gt']}{WRONG_SUFFIX}"
            changed += 1
        path.write_text(json.dumps(records, ensure_ascii=False, indent=2), encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="new folder for the release (dataset/) and the build's store")
    parser.add_argument("--n", type=int, help="rows a subset (default: SURGE's Table 1 sizes)")
    parser.add_argument("--seed", type=int, default=0, help="the build's seed (default 0)")
    parser.add_argument(
        "--wrong-every", type=int, default=0, help="make every N-th label wrong (default: none)"
    )
    args = parser.parse_args(argv)
    if args.wrong_every < 0:
        parser.error("--wrong-every must be 0 (none) or more")
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=False)
    standin = generate(out / "upstreams")
    pulled = out / "pulled"
    surge(["pull", *standin.pull_args(), "--cache", str(out / "sources"), "--store", str(pulled)], out)
    store = out / "build-store"
    sizes = ["--n", str(args.n)] if args.n else []
    common = [*sizes, "--seed", str(args.seed), "--store", str(store)]
    with StandInServer(standin.responses_path) as server:
        refactored = surge(
            ["build", *REFACTORED, *common, "--items", str(pulled), "--auto-approve",
             "--llm-base-url", server.base_url, "--model", MODEL, "--llm-cache", str(out / "llm-cache")],
            out,
        )  # fmt: skip
    from_library = surge(["build", *FROM_THE_LIBRARY, *common, "--time-mix", "surge"], out)
    surge(["export", str(store), str(out / "release")], out)
    dataset = out / "release" / "dataset"
    wrong = make_wrong(dataset, args.wrong_every) if args.wrong_every else 0
    built = refactored["built"] | from_library["built"]
    rows = {name: summary["rows"] for name, summary in built.items()}
    print(json.dumps({"rows": rows, "wrong_labels": wrong, "dataset": str(dataset)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
