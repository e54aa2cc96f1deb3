import operator

from csvq.expressions import parse_condition

AGGREGATES = {"count": len, "sum": sum, "max": max, "min": min}


def run_query(rows, text):
    """select FIELDS [where COND] [order by FIELD [desc]] [limit N]; FIELDS may be count(*) or sum(f)."""
    words = text.split()
    if not words or words[0] != "select":
        return [f"error: queries start with select, not {words[0] if words else 'nothing'}"]
    clauses = split_clauses(words[1:])
    try:
        selected = [r for r in rows if parse_condition(clauses.get("where", []))(r)]
    except (KeyError, ValueError) as error:
        return [f"error: {error}"]
    if "order" in clauses:
        key, *rest = clauses["order"][1:]
        selected.sort(key=operator.itemgetter(key), reverse=rest == ["desc"])
    if "limit" in clauses:
        selected = selected[: int(clauses["limit"][0])]
    fields = " ".join(clauses["fields"]).replace(" ", "").split(",")
    if any("(" in f for f in fields):
        return [", ".join(aggregate(f, selected) for f in fields)]
    if fields == ["*"]:
        fields = list(rows[0])
    return [" | ".join(str(r[f]) for f in fields) for r in selected] or ["(no rows)"]


def split_clauses(words):
    clauses, current = {"fields": []}, "fields"
    for word in words:
        if word in ("where", "order", "limit"):
            current = word
            clauses[current] = []
        else:
            clauses[current].append(word)
    return clauses


def aggregate(field, rows):
    name, _, inner = field.partition("(")
    inner = inner.rstrip(")")
    values = rows if inner == "*" else [r[inner] for r in rows]
    if not values and name != "count":
        return f"{field}=none"
    result = AGGREGATES[name](values)
    return f"{field}={round(result, 2) if isinstance(result, float) else result}"
