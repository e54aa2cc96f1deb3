def split_blocks(text):
    """Blank lines separate blocks; a block is (kind, lines): heading, list, quote, code or paragraph."""
    blocks, current, fenced = [], [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            if fenced:
                blocks.append(("code", current))
                current = []
            elif current:
                blocks.append((kind_of(current), current))
                current = []
            fenced = not fenced
            continue
        if fenced:
            current.append(line)
        elif not line.strip() or line.startswith("#"):
            if current:
                blocks.append((kind_of(current), current))
                current = []
            if line.startswith("#"):  # a heading is a block of its own, blank line or not
                blocks.append(("heading", [line]))
        else:
            current.append(line)
    if current:
        blocks.append(("code" if fenced else kind_of(current), current))
    return blocks


def kind_of(lines):
    first = lines[0]
    if first.startswith("#"):
        return "heading"
    if first.startswith(("- ", "* ")):
        return "list"
    if first.startswith(">"):
        return "quote"
    return "paragraph"
