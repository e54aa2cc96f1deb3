class Maze:
    def __init__(self, rows, start, goal, doors):
        self.rows = rows
        self.start = start
        self.goal = goal
        self.doors = doors  # lower-case key letter -> upper-case door letter
        self.explored = 0

    def cell(self, r, c):
        if 0 <= r < len(self.rows) and 0 <= c < len(self.rows[r]):
            return self.rows[r][c]
        return "#"


def parse_maze(text):
    rows = [line for line in text.split("\n") if line]
    start = goal = None
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == "S":
                start = (r, c)
            elif ch == "G":
                goal = (r, c)
    doors = {ch: ch.upper() for row in rows for ch in row if ch.islower()}
    return Maze(rows, start, goal, doors)
