import argparse


def lower_bound(values, target):
    lo, hi, steps = 0, len(values), 0
    while lo < hi:
        steps += 1
        middle = (lo + hi) // 2
        if values[middle] < target:
            lo = middle + 1
        else:
            hi = middle
    return lo, steps


def main():
    parser = argparse.ArgumentParser(description="many binary searches over a sorted arithmetic table")
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--queries", type=int, required=True)
    parser.add_argument("--stride", type=int, required=True)
    args = parser.parse_args()
    table = [i * args.stride for i in range(args.size)]
    found = total_steps = 0
    for q in range(args.queries):
        target = (q * 2654435761) % (args.size * args.stride)
        index, steps = lower_bound(table, target)
        total_steps += steps
        found += index < args.size and table[index] == target
    print(f"found={found} steps={total_steps}")


if __name__ == "__main__":
    main()
