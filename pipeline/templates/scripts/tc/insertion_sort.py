import argparse
import random


def insertion_sort(values):
    values = list(values)
    for i in range(1, len(values)):
        key, j = values[i], i - 1
        while j >= 0 and values[j] > key:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = key
    return values


def main():
    parser = argparse.ArgumentParser(description="insertion sort (quadratic) of a seeded sequence; ten evenly spaced values")
    parser.add_argument("--n", type=int, required=True, help="how many values")
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ordered = insertion_sort(rng.randint(-1000, 1000) for _ in range(args.n))
    print(ordered[:: max(1, len(ordered) // 10)])


if __name__ == "__main__":
    main()
