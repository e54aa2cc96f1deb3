"""A CRUXEval-X of any size from the plug-in's own test records, to time `surge audit` at scale.

    python bench/cruxeval_x_scale.py OUT_FOLDER [--per-language N]

The whole benchmark (19 files, 13,459 programs, ~708 a language) is not in this repository and cannot be
fetched here; its cost is in starting compilers, which depends on a program's language far more than on
its text. So each language file is refilled to N programs from the plug-in's records
(examples/surge-cruxeval, upstream's format): the passing checks in turn, each copy made distinct by a
trailing comment (no compile is a cache hit, as in the real benchmark), and once each the records that are
not passing checks (a wrong expected value, prose, a vacuous check), so every class still shows. Ids run
0..799 as upstream's; the ids past N are objects without code (translations that do not exist).

Time the audit of the folder, `surge audit OUT --subset cruxeval-x --store STORE --json` (the plug-in
installed), to set against the 60-minute goal for the whole benchmark; `python bench/bench_audit_ideal.py
--store STORE --wall-s SECONDS` then splits that time against the programs' own CPU.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

PLUGIN = Path(__file__).resolve().parents[1] / "examples" / "surge-cruxeval"
FILES = PLUGIN / "src" / "surge_cruxeval" / "data" / "cruxeval-x"
IDS_PER_FILE = 800  # upstream's objects per language file
PASSING_IDS = {0, 3, 4, 5}  # data/cruxeval-x/README.txt: the records whose check holds and can fail
LINE_COMMENTS = {"py": "#", "sh": "#", "pl": "#", "r": "#", "rb": "#", "jl": "#", "lua": "--", "rkt": ";"}


def refilled(records: list[dict[str, object]], stem: str, per_language: int) -> list[dict[str, object]]:
    """The language's file with `per_language` programs: the odd records once, the passing ones cycled."""
    with_code = [record for record in records if "code" in record]
    odd = [record for record in with_code if record["id"] not in PASSING_IDS]
    passing = [record for record in with_code if record["id"] in PASSING_IDS]
    comment = LINE_COMMENTS.get(stem, "//")
    programs = [record["code"] for record in odd]
    for copy in range(per_language - len(programs)):
        programs.append(f"{passing[copy % len(passing)]['code']}\n{comment} copy {copy}\n")
    return [{"id": index, "code": code} for index, code in enumerate(programs)] + [
        {"id": index} for index in range(len(programs), IDS_PER_FILE)
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the 19 language files into")
    parser.add_argument("--per-language", type=int, default=708, help="programs per file (upstream: ~708)")
    args = parser.parse_args(argv)
    if not 1 <= args.per_language <= IDS_PER_FILE:
        parser.error(f"--per-language must be 1..{IDS_PER_FILE}")
    args.out.mkdir(parents=True, exist_ok=True)
    total = 0
    files = sorted(FILES.glob("*.json"))
    for path in files:
        records = refilled(json.loads(path.read_text()), path.stem, args.per_language)
        (args.out / path.name).write_text(json.dumps(records, indent=4, ensure_ascii=False))
        total += sum("code" in record for record in records)
    print(f"wrote {total} programs in {len(files)} files to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
