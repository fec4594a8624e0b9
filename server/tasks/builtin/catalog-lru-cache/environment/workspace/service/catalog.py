class Catalog:
    """Product lookups and updates on top of the database."""

    def __init__(self, db):
        self.db = db

    def get(self, product_id):
        return self.db.fetch(product_id)

    def get_many(self, product_ids):
        return {pid: self.get(pid) for pid in product_ids}

    def set_price(self, product_id, price):
        row = self.db.fetch(product_id)
        if row is None:
            raise KeyError(product_id)
        row["price"] = price
        self.db.store(product_id, row)

    def delete(self, product_id):
        self.db.delete(product_id)
