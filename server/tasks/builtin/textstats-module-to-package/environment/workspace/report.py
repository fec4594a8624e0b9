"""Readability report for every document in docs/."""
import os

from textstats import flesch_reading_ease, word_freq


def main():
    for name in sorted(os.listdir("docs")):
        with open(os.path.join("docs", name), encoding="utf-8") as f:
            text = f.read()
        top = ", ".join(w for w, _ in word_freq(text, 3))
        print(f"{name}: flesch={flesch_reading_ease(text):.1f} top={top}")


if __name__ == "__main__":
    main()
