import argparse
import random


def main():
    parser = argparse.ArgumentParser(description="0/1 knapsack by dynamic programming over capacities (pseudo-polynomial)")
    parser.add_argument("--items", type=int, required=True)
    parser.add_argument("--capacity", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    best = [0] * (args.capacity + 1)
    for _ in range(args.items):
        weight, value = rng.randint(1, max(1, args.capacity // 4)), rng.randint(1, 100)
        for c in range(args.capacity, weight - 1, -1):
            if best[c - weight] + value > best[c]:
                best[c] = best[c - weight] + value
    print(f"best value={best[args.capacity]}")


if __name__ == "__main__":
    main()
