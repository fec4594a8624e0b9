class ProductDB:
    """Stands in for the slow product database; counts reads so callers can see cache effects."""

    def __init__(self, products=None):
        self.rows = {k: dict(v) for k, v in (products or {}).items()}
        self.reads = 0

    def fetch(self, product_id):
        self.reads += 1
        row = self.rows.get(product_id)
        return dict(row) if row is not None else None

    def store(self, product_id, row):
        self.rows[product_id] = dict(row)

    def delete(self, product_id):
        self.rows.pop(product_id, None)
