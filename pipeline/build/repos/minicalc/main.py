import sys

from calc.evaluator import Evaluator, CalcError


def main(path):
    evaluator = Evaluator()
    with open(path) as handle:
        for number, line in enumerate(handle, start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                value = evaluator.run(line)
            except CalcError as error:
                print(f"line {number}: {error}")
                continue
            if value is not None:
                print(value)
    print("variables:", ", ".join(f"{k}={v}" for k, v in sorted(evaluator.variables.items())))


if __name__ == "__main__":
    main(sys.argv[1])
