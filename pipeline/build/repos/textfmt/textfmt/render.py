import textwrap


def render_block(block, width, counters):
    kind, lines = block
    if kind == "heading":
        level = len(lines[0]) - len(lines[0].lstrip("#"))
        counters[level] = counters.get(level, 0) + 1
        for deeper in [k for k in counters if k > level]:
            counters[deeper] = 0
        number = ".".join(str(counters.get(k, 0)) for k in range(1, level + 1))
        title = lines[0].lstrip("#").strip()
        return [f"{number} {title.upper() if level == 1 else title}", ""]
    if kind == "list":
        out = []
        for line in lines:
            out += textwrap.wrap(line[2:], width - 2, initial_indent="* ", subsequent_indent="  ")
        return out + [""]
    if kind == "quote":
        text = " ".join(line.lstrip("> ") for line in lines)
        return textwrap.wrap(text, width - 2, initial_indent="| ", subsequent_indent="| ") + [""]
    if kind == "code":
        return ["    " + line for line in lines] + [""]
    return textwrap.wrap(" ".join(lines), width) + [""]
