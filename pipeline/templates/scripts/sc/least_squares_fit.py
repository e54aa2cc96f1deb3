import argparse


def main():
    parser = argparse.ArgumentParser(description="least-squares line through points by the normal equations")
    parser.add_argument("--xs", type=str, required=True, help="comma-separated x values")
    parser.add_argument("--ys", type=str, required=True, help="comma-separated y values")
    args = parser.parse_args()
    xs = [float(v) for v in args.xs.split(",")]
    ys = [float(v) for v in args.ys.split(",")]
    n = len(xs)
    sx, sy = sum(xs), sum(ys)
    sxx, sxy = sum(x * x for x in xs), sum(x * y for x, y in zip(xs, ys))
    denominator = n * sxx - sx * sx
    if denominator == 0:
        print("all x values are equal: no unique line")
        return
    slope = (n * sxy - sx * sy) / denominator
    intercept = (sy - slope * sx) / n
    residual = sum((y - slope * x - intercept) ** 2 for x, y in zip(xs, ys))
    print(f"slope={slope:.6f} intercept={intercept:.6f} residual={residual:.6f}")


if __name__ == "__main__":
    main()
