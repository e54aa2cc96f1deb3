import argparse


def merge_sort(values, counter):
    if len(values) <= 1:
        return values
    middle = len(values) // 2
    left, right = merge_sort(values[:middle], counter), merge_sort(values[middle:], counter)
    merged, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        counter[0] += 1
        if left[i] <= right[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    return merged + left[i:] + right[j:]


def main():
    parser = argparse.ArgumentParser(description="merge sort of a seeded sequence, counting comparisons")
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--modulus", type=int, default=1000003)
    args = parser.parse_args()
    values = [(args.seed * 7919 + i * 104729) % args.modulus for i in range(args.n)]
    counter = [0]
    ordered = merge_sort(values, counter)
    print(f"comparisons={counter[0]} first={ordered[:5]} last={ordered[-1]}")


if __name__ == "__main__":
    main()
