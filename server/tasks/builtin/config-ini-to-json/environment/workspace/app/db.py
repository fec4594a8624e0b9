from .config import load_config


def pool_settings(cfg=None):
    cfg = cfg or load_config()
    return {
        "url": cfg.get("database", "url"),
        "size": cfg.getint("database", "pool_size"),
        "timeout": cfg.getfloat("database", "timeout_sec"),
    }
