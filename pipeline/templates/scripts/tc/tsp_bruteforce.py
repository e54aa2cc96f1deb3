import argparse
import itertools
import math


def main():
    parser = argparse.ArgumentParser(description="travelling salesman by brute force (NP-hard)")
    parser.add_argument("--positions", type=str, required=True, help="'x,y x,y ...'")
    args = parser.parse_args()
    points = [tuple(float(v) for v in p.split(",")) for p in args.positions.split()]
    best, best_path = float("inf"), None
    for perm in itertools.permutations(range(1, len(points))):
        path = (0,) + perm + (0,)
        length = sum(math.dist(points[path[i]], points[path[i + 1]]) for i in range(len(path) - 1))
        if length < best:
            best, best_path = length, path
    print(f"{best:.2f} {list(best_path)}")


if __name__ == "__main__":
    main()
