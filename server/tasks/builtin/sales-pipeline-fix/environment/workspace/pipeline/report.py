def render_markdown(totals):
    lines = [
        "| Region | Orders | Units | Revenue | Avg order |",
        "|---|---:|---:|---:|---:|",
    ]
    for region, e in sorted(totals.items(), key=lambda kv: kv[1]["revenue"]):
        lines.append(f"| {region} | {e['orders']} | {e['units']} | {e['revenue']:.2f} | {e['avg_order']:.2f} |")
    return "\n".join(lines) + "\n"


def summary(totals):
    return {
        "regions": len(totals),
        "revenue": sum(e["revenue"] for e in totals.values()),
        "top_region": max(totals, key=lambda r: totals[r]["orders"]),
    }
