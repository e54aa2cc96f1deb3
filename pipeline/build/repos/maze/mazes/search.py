from collections import deque

MOVES = ((0, 1), (1, 0), (0, -1), (-1, 0))


def shortest_path(maze):
    """Breadth-first over (cell, keys held): a door opens once its lower-case key was picked up."""
    first = (maze.start, frozenset())
    previous = {first: None}
    queue = deque([first])
    while queue:
        state = queue.popleft()
        maze.explored += 1
        (r, c), keys = state
        if (r, c) == maze.goal:
            path = []
            while state:
                path.append(state[0])
                state = previous[state]
            return path[::-1]
        for dr, dc in MOVES:
            ch = maze.cell(r + dr, c + dc)
            if ch == "#" or (ch.isupper() and ch not in "SG" and ch.lower() not in keys):
                continue
            held = keys | {ch} if ch.islower() else keys
            nxt = ((r + dr, c + dc), held)
            if nxt not in previous:
                previous[nxt] = state
                queue.append(nxt)
    return None


def render(maze, path):
    rows = [list(row) for row in maze.rows]
    for r, c in path[1:-1]:
        if rows[r][c] == ".":
            rows[r][c] = "*"
    return "\n".join("".join(row) for row in rows)
