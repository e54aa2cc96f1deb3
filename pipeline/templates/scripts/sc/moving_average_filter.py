import argparse


def lcg(seed):
    state = seed
    while True:
        state = (1103515245 * state + 12345) % 2**31
        yield state / 2**31


def main():
    parser = argparse.ArgumentParser(description="moving-average filter over a seeded noisy ramp")
    parser.add_argument("--length", type=int, required=True)
    parser.add_argument("--window", type=int, required=True)
    parser.add_argument("--noise", type=float, required=True)
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    noise = lcg(args.seed)
    signal = [i / args.length + args.noise * (next(noise) - 0.5) for i in range(args.length)]
    filtered = [sum(signal[i : i + args.window]) / args.window for i in range(args.length - args.window + 1)]
    print(" ".join(f"{v:.4f}" for v in filtered[:: max(1, len(filtered) // 8)]))


if __name__ == "__main__":
    main()
