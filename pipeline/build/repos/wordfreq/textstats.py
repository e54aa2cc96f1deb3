import re
from collections import Counter


def words(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Za-z']+", text)]


def top_words(tokens: list[str], k: int) -> list[tuple[str, int]]:
    counts = Counter(tokens)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k]
