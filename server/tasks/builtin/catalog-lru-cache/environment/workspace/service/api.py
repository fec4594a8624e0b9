"""HTTP-ish handlers: each returns (status, body)."""


def handle_get(catalog, product_id):
    row = catalog.get(product_id)
    if row is None:
        return 404, {"error": f"no product {product_id}"}
    return 200, row


def handle_put_price(catalog, product_id, price):
    row = catalog.db.fetch(product_id)
    if row is None:
        return 404, {"error": f"no product {product_id}"}
    row["price"] = price
    catalog.db.store(product_id, row)
    return 200, row


def handle_delete(catalog, product_id):
    catalog.delete(product_id)
    return 204, None
