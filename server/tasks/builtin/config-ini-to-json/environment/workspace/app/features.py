from .config import load_config


def enabled_features(cfg=None):
    cfg = cfg or load_config()
    return [f.strip() for f in cfg.get("features", "enabled").split(",") if f.strip()]


def is_enabled(name, cfg=None):
    return name in enabled_features(cfg)
