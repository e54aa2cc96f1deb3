import argparse
import math

RATIO = (math.sqrt(5) - 1) / 2


def main():
    parser = argparse.ArgumentParser(description="golden-section search for the minimum of (x - c)^2 + s*sin(3x) on [a, b]")
    parser.add_argument("--c", type=float, required=True)
    parser.add_argument("--s", type=float, required=True)
    parser.add_argument("--a", type=float, required=True)
    parser.add_argument("--b", type=float, required=True)
    parser.add_argument("--iterations", type=int, required=True)
    args = parser.parse_args()

    def f(x):
        return (x - args.c) ** 2 + args.s * math.sin(3 * x)

    a, b = args.a, args.b
    for _ in range(args.iterations):
        x1, x2 = b - RATIO * (b - a), a + RATIO * (b - a)
        if f(x1) < f(x2):
            b = x2
        else:
            a = x1
    x = (a + b) / 2
    print(f"x={x:.6f} f={f(x):.6f}")


if __name__ == "__main__":
    main()
