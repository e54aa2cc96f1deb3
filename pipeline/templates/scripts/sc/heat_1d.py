import argparse
import math


def solve(length, total_time, alpha, nx, nt):
    dx = length / (nx - 1)
    dt = total_time / nt
    r = alpha * dt / dx**2
    u = [math.sin(math.pi * i * dx / length) for i in range(nx)]
    for _ in range(nt):
        u = [u[0]] + [u[i] + r * (u[i - 1] - 2 * u[i] + u[i + 1]) for i in range(1, nx - 1)] + [u[-1]]
    return u


def main():
    parser = argparse.ArgumentParser(description="explicit finite differences for the 1D heat equation")
    parser.add_argument("--L", type=float, required=True, help="rod length")
    parser.add_argument("--T", type=float, required=True, help="total time")
    parser.add_argument("--alpha", type=float, required=True, help="thermal diffusivity")
    parser.add_argument("--Nx", type=int, required=True, help="spatial points")
    parser.add_argument("--Nt", type=int, required=True, help="time steps")
    args = parser.parse_args()
    u = solve(args.L, args.T, args.alpha, args.Nx, args.Nt)
    print(" ".join(f"{v:.4e}" for v in u))


if __name__ == "__main__":
    main()
