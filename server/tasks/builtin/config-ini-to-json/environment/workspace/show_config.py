"""Print the effective configuration (used by the deploy checklist)."""
from app.config import load_config
from app.db import pool_settings
from app.features import enabled_features
from app.server import bind_address, debug_enabled


def main():
    cfg = load_config()
    print(f"server: {bind_address(cfg)} (debug {'on' if debug_enabled(cfg) else 'off'})")
    pool = pool_settings(cfg)
    print(f"database: {pool['url']} pool={pool['size']} timeout={pool['timeout']}s")
    print(f"features: {', '.join(enabled_features(cfg))}")


if __name__ == "__main__":
    main()
