import argparse


def main():
    parser = argparse.ArgumentParser(description="power iteration for the dominant eigenvalue of a matrix")
    parser.add_argument("--matrix", type=str, required=True, help="rows separated by ';', values by ','")
    parser.add_argument("--iterations", type=int, required=True)
    args = parser.parse_args()
    a = [[float(v) for v in row.split(",")] for row in args.matrix.split(";")]
    x = [1.0] * len(a)
    eigenvalue = 0.0
    for _ in range(args.iterations):
        y = [sum(row[j] * x[j] for j in range(len(x))) for row in a]
        norm = max(abs(v) for v in y) or 1.0
        eigenvalue = sum(y[k] * x[k] for k in range(len(x))) / sum(v * v for v in x)
        x = [v / norm for v in y]
    print(f"{eigenvalue:.6f}")


if __name__ == "__main__":
    main()
