import operator

OPERATORS = {"=": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge}


def parse_condition(words):
    """FIELD OP VALUE [and FIELD OP VALUE]... -> a predicate over rows."""
    if not words:
        return lambda row: True
    tests = []
    for part in " ".join(words).split(" and "):
        field, op, value = part.split()
        if op not in OPERATORS:
            raise ValueError(f"unknown operator {op}")
        tests.append((field, OPERATORS[op], coerce(value)))

    def check(row):
        return all(compare(row[field], value) for field, compare, value in tests)

    return check


def coerce(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip("'")
