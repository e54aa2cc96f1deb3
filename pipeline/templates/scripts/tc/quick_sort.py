import argparse
import random


def quick_sort(values):
    # Lomuto partition on an explicit stack: no recursion limit at large n
    values = list(values)
    stack = [(0, len(values) - 1)]
    while stack:
        low, high = stack.pop()
        if low >= high:
            continue
        pivot, store = values[high], low
        for i in range(low, high):
            if values[i] < pivot:
                values[i], values[store] = values[store], values[i]
                store += 1
        values[store], values[high] = values[high], values[store]
        stack += [(low, store - 1), (store + 1, high)]
    return values


def main():
    parser = argparse.ArgumentParser(description="quick sort of a seeded sequence; prints ten evenly spaced values")
    parser.add_argument("--n", type=int, required=True, help="how many values")
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ordered = quick_sort(rng.randint(0, 10**6) for _ in range(args.n))
    print(ordered[:: max(1, len(ordered) // 10)])


if __name__ == "__main__":
    main()
