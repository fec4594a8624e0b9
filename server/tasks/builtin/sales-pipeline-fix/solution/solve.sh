#!/bin/bash
# Oracle solution for sales-pipeline-fix: brings the initial workspace to the reference end state.
set -euo pipefail
cd "${WORKSPACE:-/workspace}"

mkdir -p pipeline
cat > pipeline/parse.py <<'SPROUT_EOF'
import csv


def _money(text):
    # The export writes thousands separators ("1,250.00").
    return float(text.strip().replace(",", ""))


def parse_sales(path):
    """Read the sales export into one dict per sale, with typed fields."""
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        # DictReader handles quoted commas and skips blank lines.
        for rec in csv.DictReader(f):
            rows.append({
                "date": rec["date"].strip(),
                "region": rec["region"].strip().title(),
                "product": rec["product"].strip(),
                "units": int(rec["units"]),
                "unit_price": _money(rec["unit_price"]),
            })
    return rows
SPROUT_EOF
mkdir -p pipeline
cat > pipeline/aggregate.py <<'SPROUT_EOF'
def by_region(rows):
    """Per region: number of orders, units sold, revenue and average order value."""
    totals = {}
    for row in rows:
        revenue = row["units"] * row["unit_price"]
        entry = totals.setdefault(row["region"], {"orders": 0, "units": 0, "revenue": 0.0})
        entry["orders"] += 1
        entry["units"] += row["units"]
        entry["revenue"] += revenue
    for entry in totals.values():
        entry["avg_order"] = entry["revenue"] / entry["orders"]
    return totals
SPROUT_EOF
mkdir -p pipeline
cat > pipeline/report.py <<'SPROUT_EOF'
def render_markdown(totals):
    lines = [
        "| Region | Orders | Units | Revenue | Avg order |",
        "|---|---:|---:|---:|---:|",
    ]
    for region, e in sorted(totals.items(), key=lambda kv: (-kv[1]["revenue"], kv[0])):
        lines.append(f"| {region} | {e['orders']} | {e['units']} | {e['revenue']:.2f} | {e['avg_order']:.2f} |")
    return "\n".join(lines) + "\n"


def summary(totals):
    return {
        "regions": len(totals),
        "orders": sum(e["orders"] for e in totals.values()),
        "revenue": round(sum(e["revenue"] for e in totals.values()), 2),
        "top_region": max(totals, key=lambda r: totals[r]["revenue"]),
    }
SPROUT_EOF
