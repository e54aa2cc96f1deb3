def parse_scores(fields):
    """'homework=80,90,70' fields -> ({component: [scores]}, [problems])."""
    scores, problems = {}, []
    for field in fields:
        component, _, values = field.partition("=")
        try:
            marks = [float(v) for v in values.split(",") if v]
        except ValueError:
            problems.append(f"bad score in {field}")
            continue
        if any(m < 0 or m > 100 for m in marks):
            problems.append(f"{component} out of range")
        scores.setdefault(component, []).extend(marks)
    return scores, problems
