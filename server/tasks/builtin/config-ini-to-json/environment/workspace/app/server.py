from .config import load_config


def bind_address(cfg=None):
    cfg = cfg or load_config()
    return f"{cfg.get('server', 'host')}:{cfg.getint('server', 'port')}"


def debug_enabled(cfg=None):
    cfg = cfg or load_config()
    return cfg.getboolean("server", "debug")
