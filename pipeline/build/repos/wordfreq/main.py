import sys

from textstats import top_words, words


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as handle:
        text = handle.read()
    tokens = words(text)
    print(f"{len(tokens)} words, {len(set(tokens))} distinct")
    for word, count in top_words(tokens, 3):
        print(f"{word}: {count}")


if __name__ == "__main__":
    main()
