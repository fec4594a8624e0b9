"""Loads the application's configuration."""
import configparser
import os

DEFAULT_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "config", "app.ini")


def load_config(path=None):
    parser = configparser.ConfigParser()
    parser.read(path or os.environ.get("APP_CONFIG", DEFAULT_PATH))
    return parser
