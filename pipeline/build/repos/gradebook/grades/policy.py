import csv
from pathlib import Path

DATA = Path(__file__).parent / "data"


def load_policy():
    with open(DATA / "policy.csv") as handle:
        rows = list(csv.DictReader(handle))
    letters = []
    for line in (DATA / "letters.txt").read_text().split("\n"):
        if line.strip():
            bound, letter = line.split()
            letters.append((int(bound), letter))
    return {
        "weights": {row["component"]: float(row["weight"]) for row in rows},
        "drop": {row["component"]: int(row["drop_lowest"]) for row in rows},
        "letters": letters,
    }
