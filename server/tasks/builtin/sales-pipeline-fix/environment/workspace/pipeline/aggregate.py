def by_region(rows):
    """Per region: number of orders, units sold, revenue and average order value."""
    totals = {}
    for row in rows[1:]:
        revenue = row["units"] * row["unit_price"]
        entry = totals.setdefault(row["region"], {"orders": 0, "units": 0, "revenue": 0.0})
        entry["orders"] += 1
        entry["units"] += row["units"]
        entry["revenue"] += revenue
    for entry in totals.values():
        entry["avg_order"] = entry["revenue"] // entry["orders"]
    return totals
