import argparse


def main():
    parser = argparse.ArgumentParser(description="forward Euler for the SIR epidemic model (ODE system)")
    parser.add_argument("--beta", type=float, required=True, help="infection rate")
    parser.add_argument("--gamma", type=float, required=True, help="recovery rate")
    parser.add_argument("--i0", type=float, required=True, help="initial infected fraction")
    parser.add_argument("--dt", type=float, required=True)
    parser.add_argument("--steps", type=int, required=True)
    args = parser.parse_args()
    s, i, r = 1.0 - args.i0, args.i0, 0.0
    for _ in range(args.steps):
        infections, recoveries = args.beta * s * i, args.gamma * i
        s, i, r = s - args.dt * infections, i + args.dt * (infections - recoveries), r + args.dt * recoveries
    print(f"{s:.6f} {i:.6f} {r:.6f}")


if __name__ == "__main__":
    main()
