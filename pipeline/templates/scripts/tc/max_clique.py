import argparse
import itertools
import random


def main():
    parser = argparse.ArgumentParser(description="largest clique by exhaustive search over vertex subsets (NP-hard)")
    parser.add_argument("--vertices", type=int, required=True)
    parser.add_argument("--density", type=float, required=True)
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    n = args.vertices
    adjacent = [[False] * n for _ in range(n)]
    for i, j in itertools.combinations(range(n), 2):
        adjacent[i][j] = adjacent[j][i] = rng.random() < args.density
    best = (0,)
    for mask in range(1, 1 << n):
        members = [v for v in range(n) if mask >> v & 1]
        if len(members) > len(best) and all(adjacent[a][b] for a, b in itertools.combinations(members, 2)):
            best = tuple(members)
    print(f"clique size={len(best)} members={list(best)}")


if __name__ == "__main__":
    main()
