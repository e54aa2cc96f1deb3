import argparse
import cmath
import math


def dft(samples):
    n = len(samples)
    return [sum(samples[t] * cmath.exp(-2j * math.pi * k * t / n) for t in range(n)) for k in range(n)]


def main():
    parser = argparse.ArgumentParser(description="magnitude spectrum of a sum of two sines")
    parser.add_argument("--n", type=int, required=True, help="samples")
    parser.add_argument("--f1", type=int, required=True, help="first frequency (bins)")
    parser.add_argument("--f2", type=int, required=True, help="second frequency (bins)")
    parser.add_argument("--a2", type=float, required=True, help="amplitude of the second sine")
    args = parser.parse_args()
    signal = [
        math.sin(2 * math.pi * args.f1 * t / args.n) + args.a2 * math.sin(2 * math.pi * args.f2 * t / args.n)
        for t in range(args.n)
    ]
    spectrum = [abs(c) / args.n for c in dft(signal)[: args.n // 2 + 1]]
    peaks = sorted(range(len(spectrum)), key=lambda k: -spectrum[k])[:2]
    print("peaks:", " ".join(f"{k}:{spectrum[k]:.4f}" for k in sorted(peaks)))


if __name__ == "__main__":
    main()
