import argparse
import math

FUNCTIONS = {
    "sin": math.sin,
    "exp": math.exp,
    "gauss": lambda x: math.exp(-x * x),
    "poly": lambda x: 3 * x**3 - 2 * x + 1,
}


def simpson(f, a, b, n):
    if n % 2:
        n += 1
    h = (b - a) / n
    total = f(a) + f(b)
    for i in range(1, n):
        total += (4 if i % 2 else 2) * f(a + i * h)
    return total * h / 3


def main():
    parser = argparse.ArgumentParser(description="composite Simpson's rule")
    parser.add_argument("--function", choices=sorted(FUNCTIONS), required=True)
    parser.add_argument("--a", type=float, required=True)
    parser.add_argument("--b", type=float, required=True)
    parser.add_argument("--n", type=int, required=True, help="subintervals (made even)")
    args = parser.parse_args()
    print(f"{simpson(FUNCTIONS[args.function], args.a, args.b, args.n):.10f}")


if __name__ == "__main__":
    main()
