import argparse


def derivative(state, omega, damping):
    x, v = state
    return (v, -(omega**2) * x - 2 * damping * omega * v)


def rk4(state, dt, omega, damping):
    def add(s, k, h):
        return (s[0] + h * k[0], s[1] + h * k[1])

    k1 = derivative(state, omega, damping)
    k2 = derivative(add(state, k1, dt / 2), omega, damping)
    k3 = derivative(add(state, k2, dt / 2), omega, damping)
    k4 = derivative(add(state, k3, dt), omega, damping)
    return (
        state[0] + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]),
        state[1] + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1]),
    )


def main():
    parser = argparse.ArgumentParser(description="damped harmonic oscillator with classical Runge-Kutta")
    parser.add_argument("--x0", type=float, required=True)
    parser.add_argument("--v0", type=float, required=True)
    parser.add_argument("--omega", type=float, required=True)
    parser.add_argument("--damping", type=float, required=True)
    parser.add_argument("--dt", type=float, required=True)
    parser.add_argument("--steps", type=int, required=True)
    args = parser.parse_args()
    state = (args.x0, args.v0)
    for _ in range(args.steps):
        state = rk4(state, args.dt, args.omega, args.damping)
    print(f"x={state[0]:.6f} v={state[1]:.6f}")


if __name__ == "__main__":
    main()
