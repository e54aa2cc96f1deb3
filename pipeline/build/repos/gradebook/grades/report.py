from grades.scores import parse_scores


def letter_for(score, letters):
    for bound, letter in letters:
        if score >= bound:
            return letter
    return letters[-1][1]


def grade_student(name, fields, policy):
    scores, problems = parse_scores(fields)
    if problems:
        return f"{name}: incomplete ({'; '.join(problems)})"
    total = 0.0
    for component, weight in policy["weights"].items():
        marks = sorted(scores.get(component, []))
        if not marks:
            return f"{name}: missing {component}"
        kept = marks[policy["drop"][component]:] or marks
        total += weight * sum(kept) / len(kept)
    bonus = " +bonus" if total >= 95 else ""
    return f"{name}: {total:.1f} {letter_for(round(total, 1), policy['letters'])}{bonus}"
