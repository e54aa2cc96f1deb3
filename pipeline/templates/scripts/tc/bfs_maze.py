import argparse
import random
from collections import deque


def distances(grid, size):
    # every cell reachable from the top-left corner: the whole component, so the work grows with the maze
    distance = [-1] * (size * size)
    distance[0] = 0
    queue = deque([0])
    while queue:
        cell = queue.popleft()
        row, col = divmod(cell, size)
        for r, c in ((row + 1, col), (row - 1, col), (row, col + 1), (row, col - 1)):
            if 0 <= r < size and 0 <= c < size and not grid[r][c] and distance[r * size + c] < 0:
                distance[r * size + c] = distance[cell] + 1
                queue.append(r * size + c)
    return distance


def main():
    parser = argparse.ArgumentParser(description="breadth-first search through a seeded maze (graph, P)")
    parser.add_argument("--size", type=int, required=True, help="the maze is size x size")
    parser.add_argument("--walls", type=float, required=True, help="probability that a cell is a wall")
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    size = args.size
    grid = [[rng.random() < args.walls for _ in range(size)] for _ in range(size)]
    grid[0][0] = grid[size - 1][size - 1] = False
    distance = distances(grid, size)
    reached = [d for d in distance if d >= 0]
    print(f"reachable={len(reached)} farthest={max(reached)} corner={distance[-1]}")


if __name__ == "__main__":
    main()
