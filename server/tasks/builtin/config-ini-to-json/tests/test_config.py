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


import glob
import json
import tempfile

from app import config as app_config
from app import db, features, server

EXPECTED = {
    "server": {"host": "127.0.0.1", "port": 8080, "debug": False},
    "database": {"url": "sqlite:///data/app.db", "pool_size": 5, "timeout_sec": 2.5},
    "features": {"enabled": ["search", "export", "beta-ui"]},
}
EXPECTED_OUTPUT = (
    "server: 127.0.0.1:8080 (debug off)\n"
    "database: sqlite:///data/app.db pool=5 timeout=2.5s\n"
    "features: search, export, beta-ui\n"
)


def write_json(data):
    fd, path = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f)
    return path


def variant(section, key, value=None, delete=False):
    data = json.loads(json.dumps(EXPECTED))
    if delete:
        del data[section][key]
    else:
        data[section][key] = value
    return write_json(data)


class JsonFileTests(unittest.TestCase):
    def test_json_file_has_typed_values(self):
        with open(os.path.join(WORKSPACE, "config", "app.json")) as f:
            self.assertEqual(json.load(f), EXPECTED)

    def test_old_ini_removed(self):
        self.assertEqual(glob.glob(os.path.join(WORKSPACE, "config", "app.ini*")), [])

    def test_configparser_no_longer_used(self):
        users = []
        for path in glob.glob(os.path.join(WORKSPACE, "**", "*.py"), recursive=True):
            with open(path) as f:
                if "configparser" in f.read():
                    users.append(os.path.relpath(path, WORKSPACE))
        self.assertEqual(users, [])


class LoaderTests(unittest.TestCase):
    def test_load_config_returns_dict(self):
        self.assertEqual(app_config.load_config(), EXPECTED)

    def test_missing_key_raises_config_error(self):
        with self.assertRaises(app_config.ConfigError) as cm:
            app_config.load_config(variant("database", "pool_size", delete=True))
        self.assertIn("database.pool_size", str(cm.exception))

    def test_wrong_type_raises_config_error(self):
        with self.assertRaises(app_config.ConfigError) as cm:
            app_config.load_config(variant("server", "port", "8080"))
        self.assertIn("server.port", str(cm.exception))

    def test_app_config_env_var(self):
        path = variant("server", "port", 9090)
        r = run([sys.executable, "show_config.py"], env={"APP_CONFIG": path})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("server: 127.0.0.1:9090", r.stdout)


class CallerTests(unittest.TestCase):
    def test_bind_address(self):
        self.assertEqual(server.bind_address(), "127.0.0.1:8080")

    def test_debug_flag(self):
        self.assertIs(server.debug_enabled(), False)
        cfg = json.loads(json.dumps(EXPECTED))
        cfg["server"]["debug"] = True
        self.assertIs(server.debug_enabled(cfg), True)

    def test_pool_settings(self):
        self.assertEqual(db.pool_settings(), {"url": "sqlite:///data/app.db", "size": 5, "timeout": 2.5})

    def test_features(self):
        self.assertEqual(features.enabled_features(), ["search", "export", "beta-ui"])
        self.assertTrue(features.is_enabled("beta-ui"))
        self.assertFalse(features.is_enabled("beta"))

    def test_show_config_output_unchanged(self):
        r = run([sys.executable, "show_config.py"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, EXPECTED_OUTPUT)
