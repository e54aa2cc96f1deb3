import sys

from textfmt.blocks import split_blocks
from textfmt.render import render_block

WIDTH = 32


def main(path):
    with open(path) as handle:
        text = handle.read()
    counters = {}
    for block in split_blocks(text):
        for line in render_block(block, WIDTH, counters):
            print(line.rstrip())
    print(f"-- {sum(counters.values())} headings, {len(text.split())} words")


if __name__ == "__main__":
    main(sys.argv[1])
