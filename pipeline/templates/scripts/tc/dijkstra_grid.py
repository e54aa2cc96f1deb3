import argparse
import heapq


def weight(x, y, seed):
    return 1 + (x * 73856093 ^ y * 19349663 ^ seed) % 9


def main():
    parser = argparse.ArgumentParser(description="Dijkstra's shortest path across a weighted grid graph")
    parser.add_argument("--width", type=int, required=True)
    parser.add_argument("--height", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    start, goal = (0, 0), (args.width - 1, args.height - 1)
    distance = {start: 0}
    heap = [(0, start)]
    while heap:
        d, (x, y) = heapq.heappop(heap)
        if (x, y) == goal:
            break
        if d > distance[(x, y)]:
            continue
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= nx < args.width and 0 <= ny < args.height:
                candidate = d + weight(nx, ny, args.seed)
                if candidate < distance.get((nx, ny), float("inf")):
                    distance[(nx, ny)] = candidate
                    heapq.heappush(heap, (candidate, (nx, ny)))
    print(f"shortest={distance[goal]} settled={len(distance)}")


if __name__ == "__main__":
    main()
