import sys

from mazes.grid import parse_maze
from mazes.search import shortest_path, render


def main(path):
    with open(path) as handle:
        maze = parse_maze(handle.read())
    route = shortest_path(maze)
    if route is None:
        print("no way out")
        print(f"explored {maze.explored} cells")
        return
    print(f"{len(route) - 1} steps, explored {maze.explored} cells")
    print(render(maze, route))


if __name__ == "__main__":
    main(sys.argv[1])
