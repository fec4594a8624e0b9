#!/bin/bash
# Oracle solution for catalog-lru-cache: brings the initial workspace to the reference end state.
set -euo pipefail
cd "${WORKSPACE:-/workspace}"

mkdir -p service
cat > service/lru.py <<'SPROUT_EOF'
from collections import OrderedDict


class LRUCache:
    """Least-recently-used cache: the OrderedDict keeps keys from least to most recently used."""

    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self._data = OrderedDict()
        self._hits = 0
        self._misses = 0
        self._evictions = 0

    def get(self, key, default=None):
        if key not in self._data:
            self._misses += 1
            return default
        self._hits += 1
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key, value):
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.capacity:
            self._data.popitem(last=False)
            self._evictions += 1

    def invalidate(self, key):
        self._data.pop(key, None)

    def clear(self):
        self._data.clear()

    def stats(self):
        return {"hits": self._hits, "misses": self._misses, "evictions": self._evictions}

    def __len__(self):
        return len(self._data)

    def __contains__(self, key):
        return key in self._data
SPROUT_EOF
mkdir -p service
cat > service/catalog.py <<'SPROUT_EOF'
import copy

from . import settings
from .lru import LRUCache


class Catalog:
    """Product lookups and updates on top of the database, with an LRU cache in front."""

    def __init__(self, db, capacity=None):
        self.db = db
        # Looked up now, not at import time: ops may change settings at startup.
        self.cache = LRUCache(capacity if capacity is not None else settings.CACHE_CAPACITY)

    def get(self, product_id):
        row = self.cache.get(product_id)
        if row is None:
            row = self.db.fetch(product_id)
            if row is None:
                # Not cached: the product may be created later.
                return None
            self.cache.put(product_id, row)
        # Callers may mutate what they get; the cached row must stay pristine.
        return copy.deepcopy(row)

    def get_many(self, product_ids):
        return {pid: self.get(pid) for pid in product_ids}

    def set_price(self, product_id, price):
        row = self.db.fetch(product_id)
        if row is None:
            raise KeyError(product_id)
        row["price"] = price
        self.db.store(product_id, row)
        self.cache.invalidate(product_id)

    def delete(self, product_id):
        self.db.delete(product_id)
        self.cache.invalidate(product_id)
SPROUT_EOF
mkdir -p service
cat > service/api.py <<'SPROUT_EOF'
"""HTTP-ish handlers: each returns (status, body)."""


def handle_get(catalog, product_id):
    row = catalog.get(product_id)
    if row is None:
        return 404, {"error": f"no product {product_id}"}
    return 200, row


def handle_put_price(catalog, product_id, price):
    # Go through the catalog so its cache is invalidated.
    try:
        catalog.set_price(product_id, price)
    except KeyError:
        return 404, {"error": f"no product {product_id}"}
    return 200, catalog.get(product_id)


def handle_delete(catalog, product_id):
    catalog.delete(product_id)
    return 204, None


def handle_stats(catalog):
    return 200, catalog.cache.stats()
SPROUT_EOF
