import unittest

from tally.counting import count


class CountTests(unittest.TestCase):
    def test_count(self):
        self.assertEqual(count("a b\nc\n"), (2, 3, 6))
