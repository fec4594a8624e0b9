"""Usage: python3 run.py [SALES_CSV]   -> writes out/report.md and out/summary.json"""
import json
import os
import sys

from pipeline.aggregate import by_region
from pipeline.parse import parse_sales
from pipeline.report import render_markdown, summary


def main(argv):
    src = argv[0] if argv else "input/sales.csv"
    totals = by_region(parse_sales(src))
    os.makedirs("out", exist_ok=True)
    with open("out/report.md", "w", encoding="utf-8") as f:
        f.write(render_markdown(totals))
    with open("out/summary.json", "w", encoding="utf-8") as f:
        json.dump(summary(totals), f, indent=2)
        f.write("\n")
    print(f"wrote out/report.md and out/summary.json ({len(totals)} regions)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
