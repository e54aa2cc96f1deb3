import argparse
import math


def main():
    parser = argparse.ArgumentParser(description="convolution of a two-tone signal with a triangular smoothing kernel")
    parser.add_argument("--length", type=int, required=True, help="samples in the signal")
    parser.add_argument("--f1", type=float, required=True, help="first tone, cycles per signal")
    parser.add_argument("--f2", type=float, required=True, help="second tone, cycles per signal")
    parser.add_argument("--width", type=int, required=True, help="half width of the kernel")
    args = parser.parse_args()
    n = args.length
    signal = [math.sin(2 * math.pi * args.f1 * t / n) + 0.5 * math.sin(2 * math.pi * args.f2 * t / n) for t in range(n)]
    kernel = [args.width + 1 - abs(k) for k in range(-args.width, args.width + 1)]
    total = sum(kernel)
    out = []
    for t in range(n):
        acc = 0.0
        for k, weight in enumerate(kernel):
            i = t + k - args.width
            if 0 <= i < n:
                acc += weight * signal[i]
        out.append(acc / total)
    print(" ".join(f"{v:.4f}" for v in out[:: max(1, n // 12)]))


if __name__ == "__main__":
    main()
