import argparse


def poly(coefficients, x):
    value = 0.0
    for c in coefficients:
        value = value * x + c
    return value


def dpoly(coefficients, x):
    n = len(coefficients) - 1
    return poly([c * (n - i) for i, c in enumerate(coefficients[:-1])], x)


def main():
    parser = argparse.ArgumentParser(description="Newton's method on a polynomial")
    parser.add_argument("--coeffs", type=str, required=True, help="comma-separated, highest degree first")
    parser.add_argument("--x0", type=float, required=True)
    parser.add_argument("--tol", type=float, default=1e-10)
    parser.add_argument("--max-iter", type=int, default=50)
    args = parser.parse_args()
    coefficients = [float(c) for c in args.coeffs.split(",")]
    x = args.x0
    for iteration in range(1, args.max_iter + 1):
        slope = dpoly(coefficients, x)
        if slope == 0:
            print(f"zero derivative at iteration {iteration}")
            return
        step = poly(coefficients, x) / slope
        x -= step
        if abs(step) < args.tol:
            print(f"root={x:.8f} iterations={iteration}")
            return
    print(f"no convergence, x={x:.8f}")


if __name__ == "__main__":
    main()
