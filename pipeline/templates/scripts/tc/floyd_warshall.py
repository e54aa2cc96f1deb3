import argparse
import random


def main():
    parser = argparse.ArgumentParser(description="all-pairs shortest paths by Floyd-Warshall (cubic) on a seeded graph")
    parser.add_argument("--vertices", type=int, required=True)
    parser.add_argument("--density", type=float, required=True, help="probability of each directed edge")
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    n, inf = args.vertices, float("inf")
    dist = [[0 if i == j else (rng.randint(1, 50) if rng.random() < args.density else inf) for j in range(n)] for i in range(n)]
    for k in range(n):
        through = dist[k]
        for i in range(n):
            row, via = dist[i], dist[i][k]
            if via == inf:
                continue
            for j in range(n):
                if via + through[j] < row[j]:
                    row[j] = via + through[j]
    reachable = [d for row in dist for d in row if d != inf]
    print(f"reachable pairs={len(reachable)} total distance={sum(reachable)} longest={max(reachable)}")


if __name__ == "__main__":
    main()
