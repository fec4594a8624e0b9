#!/bin/bash
# Oracle solution for config-ini-to-json: brings the initial workspace to the reference end state.
set -euo pipefail
cd "${WORKSPACE:-/workspace}"

mkdir -p config
cat > config/app.json <<'SPROUT_EOF'
{
  "server": {
    "host": "127.0.0.1",
    "port": 8080,
    "debug": false
  },
  "database": {
    "url": "sqlite:///data/app.db",
    "pool_size": 5,
    "timeout_sec": 2.5
  },
  "features": {
    "enabled": ["search", "export", "beta-ui"]
  }
}
SPROUT_EOF
mkdir -p app
cat > app/config.py <<'SPROUT_EOF'
"""Loads the application's configuration from JSON."""
import json
import os

DEFAULT_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "config", "app.json")

# Every required key (dotted) and the JSON types it may have.
SCHEMA = {
    "server.host": (str,),
    "server.port": (int,),
    "server.debug": (bool,),
    "database.url": (str,),
    "database.pool_size": (int,),
    "database.timeout_sec": (int, float),
    "features.enabled": (list,),
}


class ConfigError(Exception):
    """The configuration is missing a key or has a value of the wrong type."""


def _validate(cfg):
    for dotted, types in SCHEMA.items():
        node = cfg
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                raise ConfigError(f"missing config key: {dotted}")
            node = node[part]
        # bool is a subclass of int, so `true` would otherwise pass as a port number.
        if not isinstance(node, types) or (isinstance(node, bool) and bool not in types):
            expected = " or ".join(t.__name__ for t in types)
            raise ConfigError(f"config key {dotted} must be {expected}, got {type(node).__name__}")


def load_config(path=None):
    path = path or os.environ.get("APP_CONFIG") or DEFAULT_PATH
    with open(path, encoding="utf-8") as f:
        cfg = json.load(f)
    _validate(cfg)
    return cfg
SPROUT_EOF
mkdir -p app
cat > app/server.py <<'SPROUT_EOF'
from .config import load_config


def bind_address(cfg=None):
    cfg = cfg or load_config()
    return f"{cfg['server']['host']}:{cfg['server']['port']}"


def debug_enabled(cfg=None):
    cfg = cfg or load_config()
    return cfg["server"]["debug"]
SPROUT_EOF
mkdir -p app
cat > app/db.py <<'SPROUT_EOF'
from .config import load_config


def pool_settings(cfg=None):
    cfg = cfg or load_config()
    return {
        "url": cfg["database"]["url"],
        "size": cfg["database"]["pool_size"],
        "timeout": cfg["database"]["timeout_sec"],
    }
SPROUT_EOF
mkdir -p app
cat > app/features.py <<'SPROUT_EOF'
from .config import load_config


def enabled_features(cfg=None):
    cfg = cfg or load_config()
    return list(cfg["features"]["enabled"])


def is_enabled(name, cfg=None):
    return name in enabled_features(cfg)
SPROUT_EOF

rm -f config/app.ini
