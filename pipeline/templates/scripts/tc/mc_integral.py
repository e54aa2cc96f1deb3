import argparse
import math
import random


def main():
    parser = argparse.ArgumentParser(description="Monte Carlo integral of exp(-x^2) over [0, b] (seeded, so reproducible)")
    parser.add_argument("--samples", type=int, required=True)
    parser.add_argument("--b", type=float, required=True, help="upper bound of the interval")
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    total = sum(math.exp(-((rng.random() * args.b) ** 2)) for _ in range(args.samples))
    print(f"Estimate: {args.b * total / args.samples:.6f}")


if __name__ == "__main__":
    main()
