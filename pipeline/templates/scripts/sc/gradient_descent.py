import argparse


def rosenbrock_gradient(x, y, a, b):
    return (-2 * (a - x) - 4 * b * x * (y - x * x), 2 * b * (y - x * x))


def main():
    parser = argparse.ArgumentParser(description="gradient descent on the Rosenbrock function")
    parser.add_argument("--a", type=float, default=1.0)
    parser.add_argument("--b", type=float, default=100.0)
    parser.add_argument("--x0", type=float, required=True)
    parser.add_argument("--y0", type=float, required=True)
    parser.add_argument("--lr", type=float, required=True, help="learning rate")
    parser.add_argument("--steps", type=int, required=True)
    args = parser.parse_args()
    x, y = args.x0, args.y0
    for _ in range(args.steps):
        gx, gy = rosenbrock_gradient(x, y, args.a, args.b)
        x, y = x - args.lr * gx, y - args.lr * gy
        if abs(x) > 1e6 or abs(y) > 1e6:
            print("diverged")
            return
    value = (args.a - x) ** 2 + args.b * (y - x * x) ** 2
    print(f"x={x:.6f} y={y:.6f} f={value:.6e}")


if __name__ == "__main__":
    main()
