#!/bin/bash
# Oracle solution for todo-cli-subcommands: brings the initial workspace to the reference end state.
set -euo pipefail
cd "${WORKSPACE:-/workspace}"

mkdir -p todolib
cat > todolib/store.py <<'SPROUT_EOF'
import json
import os


class TaskNotFound(Exception):
    def __init__(self, task_id):
        super().__init__(f"no task with id {task_id}")
        self.task_id = task_id


class Store:
    """Tasks persisted as JSON: {"next_id": int, "tasks": [{"id", "text", "priority", "done"}]}."""

    def __init__(self, path):
        self.path = path
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        else:
            data = {"next_id": 1, "tasks": []}
        self.next_id = data["next_id"]
        self.tasks = data["tasks"]

    def save(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"next_id": self.next_id, "tasks": self.tasks}, f, indent=2)
        os.replace(tmp, self.path)

    def add(self, text, priority=2):
        task = {"id": self.next_id, "text": text, "priority": priority, "done": False}
        self.next_id += 1
        self.tasks.append(task)
        self.save()
        return task

    def get(self, task_id):
        for task in self.tasks:
            if task["id"] == task_id:
                return task
        raise TaskNotFound(task_id)

    def complete(self, task_id):
        task = self.get(task_id)
        task["done"] = True
        self.save()
        return task

    def remove(self, task_id):
        task = self.get(task_id)
        self.tasks.remove(task)
        self.save()
        return task
SPROUT_EOF
cat > todo.py <<'SPROUT_EOF'
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
    lst = sub.add_parser("list", help="show open tasks")
    lst.add_argument("--all", action="store_true", help="include completed tasks")
    for name, help_text in (("done", "mark a task as completed"), ("remove", "delete a task")):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("id", type=int)
    sub.add_parser("stats", help="count open and completed tasks")
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
SPROUT_EOF
mkdir -p todolib
cat > todolib/commands.py <<'SPROUT_EOF'
"""One function per subcommand: cmd_<name>(store, args) -> exit status."""
from .format import format_task


def cmd_add(store, args):
    task = store.add(args.text, args.priority)
    print(f"added {task['id']}: {task['text']}")
    return 0


def _ordered(tasks):
    return sorted(tasks, key=lambda t: (t["priority"], t["id"]))


def cmd_list(store, args):
    tasks = [t for t in store.tasks if args.all or not t["done"]]
    if not tasks:
        print("no tasks")
        return 0
    for task in _ordered(tasks):
        print(format_task(task))
    return 0


def cmd_done(store, args):
    task = store.complete(args.id)
    print(f"completed {task['id']}: {task['text']}")
    return 0


def cmd_remove(store, args):
    task = store.remove(args.id)
    print(f"removed {task['id']}: {task['text']}")
    return 0


def cmd_stats(store, args):
    done = sum(1 for t in store.tasks if t["done"])
    print(f"{len(store.tasks)} tasks, {done} done, {len(store.tasks) - done} open")
    return 0
SPROUT_EOF
cat > test_todo_smoke.py <<'SPROUT_EOF'
"""Quick end-to-end check of the todo CLI in a scratch file."""
import contextlib
import io
import os
import tempfile
import unittest

import todo


def cli(path, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = todo.main(["--file", path, *args])
    return code, out.getvalue()


class Smoke(unittest.TestCase):
    def test_flow(self):
        path = os.path.join(tempfile.mkdtemp(), "t.json")
        cli(path, "add", "a")
        cli(path, "add", "b", "--priority", "1")
        self.assertEqual(cli(path, "list")[1].split()[0], "2")
        self.assertEqual(cli(path, "done", "2"), (0, "completed 2: b\n"))
        self.assertEqual(cli(path, "stats")[1], "2 tasks, 1 done, 1 open\n")
        self.assertEqual(cli(path, "remove", "1"), (0, "removed 1: a\n"))
        self.assertEqual(cli(path, "done", "1")[0], 2)


if __name__ == "__main__":
    unittest.main()
SPROUT_EOF
