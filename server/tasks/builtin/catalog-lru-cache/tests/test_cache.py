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


from service import api, settings
from service.backend import ProductDB
from service.catalog import Catalog
from service.lru import LRUCache

PRODUCTS = {1: {"name": "lamp", "price": 20}, 2: {"name": "desk", "price": 150}, 3: {"name": "chair", "price": 80}}


class LRUTests(unittest.TestCase):
    def test_evicts_least_recently_used(self):
        c = LRUCache(2)
        c.put("a", 1)
        c.put("b", 2)
        self.assertEqual(c.get("a"), 1)
        c.put("c", 3)
        self.assertNotIn("b", c)
        self.assertEqual((c.get("a"), c.get("c"), len(c)), (1, 3, 2))

    def test_put_existing_key_updates_and_refreshes(self):
        c = LRUCache(2)
        c.put("a", 1)
        c.put("b", 2)
        c.put("a", 10)
        c.put("c", 3)
        self.assertEqual(c.get("a"), 10)
        self.assertNotIn("b", c)

    def test_contains_does_not_refresh(self):
        c = LRUCache(2)
        c.put("a", 1)
        c.put("b", 2)
        self.assertIn("a", c)
        c.put("c", 3)
        self.assertNotIn("a", c)

    def test_invalidate_and_clear(self):
        c = LRUCache(3)
        c.put("a", 1)
        c.put("b", 2)
        c.invalidate("a")
        c.invalidate("missing")
        self.assertEqual((len(c), c.get("a", "dflt")), (1, "dflt"))
        c.clear()
        self.assertEqual(len(c), 0)

    def test_stats(self):
        c = LRUCache(1)
        c.put("a", 1)
        c.get("a")
        c.get("zzz")
        c.put("b", 2)
        self.assertEqual(c.stats(), {"hits": 1, "misses": 1, "evictions": 1})

    def test_rejects_capacity_below_one(self):
        with self.assertRaises(ValueError):
            LRUCache(0)


class CatalogTests(unittest.TestCase):
    def setUp(self):
        self.db = ProductDB(PRODUCTS)
        self.catalog = Catalog(self.db)

    def test_repeated_get_reads_db_once(self):
        self.catalog.get(1)
        self.catalog.get(1)
        self.catalog.get_many([1, 2])
        self.assertEqual(self.db.reads, 2)

    def test_returned_rows_are_copies(self):
        self.catalog.get(1)["price"] = 0
        self.assertEqual(self.catalog.get(1)["price"], 20)

    def test_set_price_invalidates(self):
        self.catalog.get(2)
        self.catalog.set_price(2, 99)
        self.assertEqual(self.catalog.get(2)["price"], 99)

    def test_delete_invalidates(self):
        self.catalog.get(3)
        self.catalog.delete(3)
        self.assertIsNone(self.catalog.get(3))

    def test_missing_products_not_cached(self):
        self.assertIsNone(self.catalog.get(7))
        self.db.store(7, {"name": "shelf", "price": 45})
        self.assertEqual(self.catalog.get(7)["name"], "shelf")

    def test_capacity_from_settings_at_creation(self):
        old = settings.CACHE_CAPACITY
        settings.CACHE_CAPACITY = 1
        try:
            catalog = Catalog(ProductDB(PRODUCTS))
        finally:
            settings.CACHE_CAPACITY = old
        catalog.get(1)
        catalog.get(2)
        self.assertEqual(len(catalog.cache), 1)
        self.assertEqual(len(Catalog(ProductDB(PRODUCTS), capacity=5).cache), 0)


class ApiTests(unittest.TestCase):
    def test_put_price_then_get_sees_new_price(self):
        catalog = Catalog(ProductDB(PRODUCTS))
        self.assertEqual(api.handle_get(catalog, 1)[1]["price"], 20)
        self.assertEqual(api.handle_put_price(catalog, 1, 25)[0], 200)
        self.assertEqual(api.handle_get(catalog, 1), (200, {"name": "lamp", "price": 25}))
        self.assertEqual(api.handle_put_price(catalog, 42, 1)[0], 404)

    def test_stats_endpoint(self):
        catalog = Catalog(ProductDB(PRODUCTS))
        api.handle_get(catalog, 1)
        api.handle_get(catalog, 1)
        self.assertEqual(api.handle_stats(catalog), (200, {"hits": 1, "misses": 1, "evictions": 0}))
