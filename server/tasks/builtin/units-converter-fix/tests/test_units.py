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


import units
from units import DimensionError, UnitsError, UnknownUnitError, convert, parse_quantity


class LengthAndMassTests(unittest.TestCase):
    def test_km_to_m(self):
        self.assertAlmostEqual(convert(1, "km", "m"), 1000.0)

    def test_mi_to_km(self):
        self.assertAlmostEqual(convert(1, "mi", "km"), 1.609344)

    def test_lb_to_kg(self):
        self.assertAlmostEqual(convert(1, "lb", "kg"), 0.45359237)

    def test_roundtrip_ft_cm(self):
        self.assertAlmostEqual(convert(convert(5, "ft", "cm"), "cm", "ft"), 5.0)

    def test_unknown_unit(self):
        with self.assertRaises(UnknownUnitError):
            convert(1, "parsec", "m")


class DimensionTests(unittest.TestCase):
    def test_incompatible_raises_dimension_error(self):
        with self.assertRaises(DimensionError):
            convert(1, "kg", "m")

    def test_dimension_error_is_units_error(self):
        self.assertTrue(issubclass(units.DimensionError, units.UnitsError))


class ParseTests(unittest.TestCase):
    def test_parse_decimal(self):
        self.assertEqual(parse_quantity("12.5 km"), (12.5, "km"))

    def test_parse_negative(self):
        self.assertEqual(parse_quantity("-3 m"), (-3.0, "m"))

    def test_parse_without_space(self):
        self.assertEqual(parse_quantity("10kg"), (10.0, "kg"))

    def test_parse_rejects_garbage(self):
        with self.assertRaises(UnitsError):
            parse_quantity("km 12")


class TemperatureTests(unittest.TestCase):
    def test_celsius_to_fahrenheit(self):
        self.assertAlmostEqual(convert(100, "C", "F"), 212.0)

    def test_kelvin_to_celsius(self):
        self.assertAlmostEqual(convert(0, "K", "C"), -273.15)

    def test_fahrenheit_to_kelvin(self):
        self.assertAlmostEqual(convert(32, "F", "K"), 273.15)

    def test_temperature_vs_length(self):
        with self.assertRaises(DimensionError):
            convert(1, "C", "m")


class CliTests(unittest.TestCase):
    def test_cli_length(self):
        r = run([sys.executable, "cli.py", "10 km", "mi"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "6.21 mi")

    def test_cli_temperature(self):
        r = run([sys.executable, "cli.py", "100 C", "F"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "212.00 F")

    def test_cli_dimension_error(self):
        r = run([sys.executable, "cli.py", "1 kg", "m"])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertTrue(r.stderr.startswith("error:"), r.stderr)
        self.assertNotIn("Traceback", r.stderr)
