import argparse
import math


def solve(length, speed, nx, nt, dt):
    dx = length / (nx - 1)
    r2 = (speed * dt / dx) ** 2
    now = [math.sin(math.pi * i * dx / length) for i in range(nx)]
    # first step from a string at rest: u(t=dt) = u + r2/2 * (discrete Laplacian of u)
    nxt = [0.0] + [now[i] + 0.5 * r2 * (now[i - 1] - 2 * now[i] + now[i + 1]) for i in range(1, nx - 1)] + [0.0]
    before, now = now, nxt
    for _ in range(nt - 1):
        nxt = [0.0] + [2 * now[i] - before[i] + r2 * (now[i - 1] - 2 * now[i] + now[i + 1]) for i in range(1, nx - 1)] + [0.0]
        before, now = now, nxt
    return now


def main():
    parser = argparse.ArgumentParser(description="explicit finite differences for the 1D wave equation (a plucked string)")
    parser.add_argument("--L", type=float, required=True, help="string length")
    parser.add_argument("--c", type=float, required=True, help="wave speed")
    parser.add_argument("--Nx", type=int, required=True, help="spatial points")
    parser.add_argument("--Nt", type=int, required=True, help="time steps")
    parser.add_argument("--dt", type=float, required=True, help="time step")
    args = parser.parse_args()
    u = solve(args.L, args.c, args.Nx, args.Nt, args.dt)
    print(" ".join(f"{v:.4e}" for v in u))


if __name__ == "__main__":
    main()
