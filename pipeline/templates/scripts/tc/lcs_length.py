import argparse
import random


def lcs(a, b):
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def main():
    parser = argparse.ArgumentParser(description="longest common subsequence of two seeded strings (quadratic DP)")
    parser.add_argument("--length", type=int, required=True, help="length of each string")
    parser.add_argument("--alphabet", type=str, default="acgt")
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    a = "".join(rng.choice(args.alphabet) for _ in range(args.length))
    b = "".join(rng.choice(args.alphabet) for _ in range(args.length))
    print(f"lcs length={lcs(a, b)}")


if __name__ == "__main__":
    main()
