import argparse
import random

BASE, MODULUS = 256, 1_000_000_007


def rabin_karp(text, pattern):
    m = len(pattern)
    if m > len(text):
        return 0
    high = pow(BASE, m - 1, MODULUS)
    target = current = 0
    for i in range(m):
        target = (target * BASE + ord(pattern[i])) % MODULUS
        current = (current * BASE + ord(text[i])) % MODULUS
    found = 0
    for start in range(len(text) - m + 1):
        if current == target and text[start : start + m] == pattern:
            found += 1
        if start + m < len(text):
            current = ((current - ord(text[start]) * high) * BASE + ord(text[start + m])) % MODULUS
    return found


def main():
    parser = argparse.ArgumentParser(description="count pattern occurrences in a seeded text with Rabin-Karp rolling hashes")
    parser.add_argument("--pattern", type=str, required=True)
    parser.add_argument("--length", type=int, required=True, help="length of the seeded text")
    parser.add_argument("--alphabet", type=str, default="ab")
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    text = "".join(rng.choice(args.alphabet) for _ in range(args.length))
    print(f"occurrences={rabin_karp(text, args.pattern)}")


if __name__ == "__main__":
    main()
