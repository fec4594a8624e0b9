"""todo - a tiny task list.   Usage: python3 todo.py [--file PATH] COMMAND ..."""
import argparse
import os
import sys

from todolib import commands
from todolib.store import Store, TaskNotFound


def build_parser():
    parser = argparse.ArgumentParser(prog="todo")
    parser.add_argument("--file", default=os.environ.get("TODO_FILE", "todo.json"), help="where tasks are stored")
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="add a task")
    add.add_argument("text")
    add.add_argument("--priority", type=int, default=2, choices=[1, 2, 3], help="1 = urgent, 3 = someday")
    # TODO: list, done, remove, stats
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    store = Store(args.file)
    handler = getattr(commands, "cmd_" + args.command)
    try:
        return handler(store, args)
    except TaskNotFound as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
