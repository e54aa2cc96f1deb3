import argparse


def failure(pattern):
    table, k = [0] * len(pattern), 0
    for i in range(1, len(pattern)):
        while k and pattern[i] != pattern[k]:
            k = table[k - 1]
        if pattern[i] == pattern[k]:
            k += 1
        table[i] = k
    return table


def main():
    parser = argparse.ArgumentParser(description="Knuth-Morris-Pratt occurrences in a generated text")
    parser.add_argument("--pattern", type=str, required=True)
    parser.add_argument("--alphabet", type=str, required=True)
    parser.add_argument("--length", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    text = "".join(args.alphabet[(i * i + args.seed * i) % len(args.alphabet)] for i in range(args.length))
    table, k, hits = failure(args.pattern), 0, []
    for i, ch in enumerate(text):
        while k and ch != args.pattern[k]:
            k = table[k - 1]
        if ch == args.pattern[k]:
            k += 1
        if k == len(args.pattern):
            hits.append(i - k + 1)
            k = table[k - 1]
    print(f"occurrences={len(hits)} first={hits[:5]}")


if __name__ == "__main__":
    main()
