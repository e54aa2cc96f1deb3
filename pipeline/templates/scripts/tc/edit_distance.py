import argparse


def main():
    parser = argparse.ArgumentParser(description="Levenshtein distance by dynamic programming")
    parser.add_argument("--a", type=str, required=True)
    parser.add_argument("--b", type=str, required=True)
    args = parser.parse_args()
    previous = list(range(len(args.b) + 1))
    for i, ca in enumerate(args.a, 1):
        current = [i]
        for j, cb in enumerate(args.b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    print(previous[-1])


if __name__ == "__main__":
    main()
