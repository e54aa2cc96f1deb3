import argparse


def count(n, row=0, cols=0, diag=0, anti=0):
    if row == n:
        return 1
    total = 0
    for col in range(n):
        if not (cols >> col) & 1 and not (diag >> (row + col)) & 1 and not (anti >> (row - col + n)) & 1:
            total += count(n, row + 1, cols | 1 << col, diag | 1 << (row + col), anti | 1 << (row - col + n))
    return total


def main():
    parser = argparse.ArgumentParser(description="count the placements of n queens by backtracking (exponential search)")
    parser.add_argument("--n", type=int, required=True, help="board size")
    args = parser.parse_args()
    print(f"solutions={count(args.n)}")


if __name__ == "__main__":
    main()
