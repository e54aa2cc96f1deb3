import argparse


def colour(adjacency, k, assignment, vertex, counter):
    counter[0] += 1
    if vertex == len(adjacency):
        return True
    for c in range(k):
        if all(assignment[u] != c for u in adjacency[vertex] if u < vertex):
            assignment[vertex] = c
            if colour(adjacency, k, assignment, vertex + 1, counter):
                return True
    assignment[vertex] = -1
    return False


def main():
    parser = argparse.ArgumentParser(description="k-colouring of a seeded random graph by backtracking")
    parser.add_argument("--vertices", type=int, required=True)
    parser.add_argument("--density", type=float, required=True, help="edge probability, 0..1")
    parser.add_argument("--k", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    adjacency = [[] for _ in range(args.vertices)]
    state = args.seed
    for u in range(args.vertices):
        for v in range(u + 1, args.vertices):
            state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
            if state / 2**64 < args.density:
                adjacency[u].append(v)
                adjacency[v].append(u)
    assignment, counter = [-1] * args.vertices, [0]
    found = colour(adjacency, args.k, assignment, 0, counter)
    print(f"colourable={found} nodes={counter[0]} colours={assignment if found else None}")


if __name__ == "__main__":
    main()
