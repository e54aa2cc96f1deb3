import argparse


def solve(matrix, rhs):
    n = len(matrix)
    a = [row[:] + [b] for row, b in zip(matrix, rhs)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-12:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            a[r] = [x - factor * y for x, y in zip(a[r], a[col])]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def main():
    parser = argparse.ArgumentParser(description="Gaussian elimination with partial pivoting")
    parser.add_argument("--matrix", type=str, required=True, help="rows separated by ';', values by ','")
    parser.add_argument("--rhs", type=str, required=True, help="comma-separated right-hand side")
    args = parser.parse_args()
    matrix = [[float(v) for v in row.split(",")] for row in args.matrix.split(";")]
    x = solve(matrix, [float(v) for v in args.rhs.split(",")])
    print("singular" if x is None else " ".join(f"{v:.6f}" for v in x))


if __name__ == "__main__":
    main()
