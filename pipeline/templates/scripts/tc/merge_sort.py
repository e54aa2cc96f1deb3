import argparse


def merge_sort(values):
    if len(values) <= 1:
        return values
    middle = len(values) // 2
    left, right = merge_sort(values[:middle]), merge_sort(values[middle:])
    merged, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    return merged + left[i:] + right[j:]


def main():
    parser = argparse.ArgumentParser(description="merge sort of a seeded sequence; prints ten evenly spaced values of the result")
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--modulus", type=int, default=1000003)
    args = parser.parse_args()
    values = [(args.seed * 7919 + i * 104729) % args.modulus for i in range(args.n)]
    ordered = merge_sort(values)
    # A list of numbers, as SURGE's sort scripts print: its metric ranks the numbers it parses (Spearman).
    print(ordered[:: max(1, len(ordered) // 10)])


if __name__ == "__main__":
    main()
