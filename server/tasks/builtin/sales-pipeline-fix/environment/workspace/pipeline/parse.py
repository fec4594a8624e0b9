def parse_sales(path):
    """Read the sales export into one dict per sale."""
    rows = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
        for line in f:
            fields = line.strip().split(",")
            rows.append(dict(zip(header, fields)))
    return rows
