import argparse
import random


def main():
    parser = argparse.ArgumentParser(description="Monte Carlo estimate of pi (seeded, so reproducible)")
    parser.add_argument("--samples", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    inside = sum(1 for _ in range(args.samples) if rng.random() ** 2 + rng.random() ** 2 <= 1.0)
    print(f"{4 * inside / args.samples:.6f}")


if __name__ == "__main__":
    main()
