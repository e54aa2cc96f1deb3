import argparse


def count_subsets(values, target, index=0):
    if target == 0:
        return 1
    if index == len(values) or target < 0:
        return 0
    return count_subsets(values, target - values[index], index + 1) + count_subsets(values, target, index + 1)


def main():
    parser = argparse.ArgumentParser(description="count subsets with a given sum by exhaustive search (NP)")
    parser.add_argument("--values", type=str, required=True, help="comma-separated positive integers")
    parser.add_argument("--target", type=int, required=True)
    args = parser.parse_args()
    values = [int(v) for v in args.values.split(",")]
    print(f"subsets={count_subsets(values, args.target)}")


if __name__ == "__main__":
    main()
