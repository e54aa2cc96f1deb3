import argparse


def polynomial(coeffs, x):
    value = 0.0
    for c in coeffs:
        value = value * x + c
    return value


def main():
    parser = argparse.ArgumentParser(description="bisection for a root of a polynomial in [a, b]")
    parser.add_argument("--coeffs", type=str, required=True, help="comma-separated, highest degree first")
    parser.add_argument("--a", type=float, required=True)
    parser.add_argument("--b", type=float, required=True)
    parser.add_argument("--iterations", type=int, required=True)
    args = parser.parse_args()
    coeffs = [float(c) for c in args.coeffs.split(",")]
    a, b = args.a, args.b
    if polynomial(coeffs, a) * polynomial(coeffs, b) > 0:
        print("no sign change in [a, b]")
        return
    for _ in range(args.iterations):
        middle = (a + b) / 2
        if polynomial(coeffs, a) * polynomial(coeffs, middle) <= 0:
            b = middle
        else:
            a = middle
    print(f"root={(a + b) / 2:.8f}")


if __name__ == "__main__":
    main()
