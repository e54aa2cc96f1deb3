import sys

from grades.policy import load_policy
from grades.report import grade_student


def main(path):
    policy = load_policy()
    with open(path) as handle:
        for line in handle:
            fields = line.split()
            if not fields:
                continue
            name, scores = fields[0], fields[1:]
            print(grade_student(name, scores, policy))


if __name__ == "__main__":
    main(sys.argv[1])
