import sys

from csvq.table import load_table
from csvq.engine import run_query


def main(path):
    table = load_table("data/cities.csv")
    with open(path) as handle:
        for line in handle:
            line = line.strip()
            if line:
                print(f"> {line}")
                for row in run_query(table, line):
                    print(row)


if __name__ == "__main__":
    main(sys.argv[1])
