import argparse
import random


def sift_down(values, start, end):
    root = start
    while 2 * root + 1 <= end:
        child = 2 * root + 1
        if child + 1 <= end and values[child] < values[child + 1]:
            child += 1
        if values[root] >= values[child]:
            return
        values[root], values[child] = values[child], values[root]
        root = child


def heap_sort(values):
    values = list(values)
    for start in range(len(values) // 2 - 1, -1, -1):
        sift_down(values, start, len(values) - 1)
    for end in range(len(values) - 1, 0, -1):
        values[0], values[end] = values[end], values[0]
        sift_down(values, 0, end - 1)
    return values


def main():
    parser = argparse.ArgumentParser(description="heap sort of a seeded sequence; prints ten evenly spaced values")
    parser.add_argument("--n", type=int, required=True, help="how many values")
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ordered = heap_sort(rng.randint(0, 10**5) for _ in range(args.n))
    print(ordered[:: max(1, len(ordered) // 10)])


if __name__ == "__main__":
    main()
