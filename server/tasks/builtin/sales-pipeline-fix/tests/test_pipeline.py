import os
import subprocess
import sys
import unittest

# The verifier runs with cwd /workspace; WORKSPACE lets the same tests run elsewhere.
WORKSPACE = os.environ.get("WORKSPACE", "/workspace")
if WORKSPACE not in sys.path:
    sys.path.insert(0, WORKSPACE)


def run(args, cwd=WORKSPACE, env=None, input=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(args, cwd=cwd, env=full_env, input=input, capture_output=True, text=True, timeout=60)


import hashlib
import json
import shutil
import tempfile

from pipeline.aggregate import by_region
from pipeline.parse import parse_sales
from pipeline.report import render_markdown, summary

RAW_SHA256 = "a1f5e19edfac0662eb749d9459f78620183fcd11d6291aef865137f59c479a51"
EXPECTED_REPORT = (
    "| Region | Orders | Units | Revenue | Avg order |\n"
    "|---|---:|---:|---:|---:|\n"
    "| South | 3 | 20 | 2709.94 | 903.31 |\n"
    "| North | 3 | 15 | 2019.89 | 673.30 |\n"
    "| East | 3 | 26 | 1437.50 | 479.17 |\n"
    "| West | 1 | 3 | 59.97 | 59.97 |\n"
)
DATA = os.path.join(WORKSPACE, "input", "sales.csv")


class ParseTests(unittest.TestCase):
    def test_quoted_commas_and_thousands_separators(self):
        row = parse_sales(DATA)[1]
        self.assertEqual(row["product"], "Widget, large")
        self.assertEqual(row["unit_price"], 1250.0)

    def test_blank_lines_skipped_and_types(self):
        rows = parse_sales(DATA)
        self.assertEqual(len(rows), 10)
        self.assertTrue(all(isinstance(r["units"], int) for r in rows))
        self.assertTrue(all(isinstance(r["unit_price"], float) for r in rows))

    def test_regions_normalised(self):
        self.assertEqual(sorted({r["region"] for r in parse_sales(DATA)}), ["East", "North", "South", "West"])


class AggregateTests(unittest.TestCase):
    def test_every_row_counted(self):
        totals = by_region(parse_sales(DATA))
        self.assertEqual(sum(e["orders"] for e in totals.values()), 10)
        self.assertEqual(totals["East"]["units"], 26)

    def test_average_not_floored(self):
        totals = by_region(parse_sales(DATA))
        self.assertAlmostEqual(totals["South"]["avg_order"], 2709.94 / 3, places=6)


class ReportTests(unittest.TestCase):
    def test_report_sorted_by_revenue_desc(self):
        self.assertEqual(render_markdown(by_region(parse_sales(DATA))), EXPECTED_REPORT)

    def test_summary(self):
        s = summary(by_region(parse_sales(DATA)))
        self.assertEqual(set(s), {"regions", "orders", "revenue", "top_region"})
        self.assertEqual((s["regions"], s["orders"], s["top_region"]), (4, 10, "South"))
        self.assertEqual(s["revenue"], 6227.3)

    def test_run_writes_outputs_for_given_csv(self):
        tmp = tempfile.mkdtemp(prefix="pipeline-")
        shutil.copy(DATA, os.path.join(tmp, "export.csv"))
        r = run([sys.executable, os.path.join(WORKSPACE, "run.py"), "export.csv"], cwd=tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(tmp, "out", "report.md")) as f:
            self.assertEqual(f.read(), EXPECTED_REPORT)
        with open(os.path.join(tmp, "out", "summary.json")) as f:
            self.assertEqual(json.load(f), {"regions": 4, "orders": 10, "revenue": 6227.3, "top_region": "South"})


class DataTests(unittest.TestCase):
    def test_raw_export_unchanged(self):
        with open(DATA, "rb") as f:
            self.assertEqual(hashlib.sha256(f.read()).hexdigest(), RAW_SHA256, "input/sales.csv was modified")
