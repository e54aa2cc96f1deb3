import re

TOKEN = re.compile(r"\s*(?:(\d+\.\d*|\d+)|([A-Za-z_]\w*)|(\*\*|[-+*/%()=,]))")


def tokenize(text):
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        while text[position].isspace():
            position += 1
        match = TOKEN.match(text, position)
        if not match:
            raise ValueError(f"unexpected {text[position]!r} at column {position + 1}")
        number, name, symbol = match.groups()
        if number:
            tokens.append(("num", float(number) if "." in number else int(number)))
        elif name:
            tokens.append(("name", name))
        else:
            tokens.append(("op", symbol))
        position = match.end()
    return tokens
