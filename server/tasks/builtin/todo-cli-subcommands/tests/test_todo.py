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


import contextlib
import io
import json
import tempfile

import todo


class TodoCliTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="todo-")
        self.file = os.path.join(self.dir, "tasks.json")

    def cli(self, *args):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = todo.main(["--file", self.file, *args])
            except SystemExit as exc:
                code = exc.code
        return code, out.getvalue(), err.getvalue()

    def ok(self, *args):
        code, out, err = self.cli(*args)
        self.assertEqual(code, 0, "todo %s failed: %s" % (" ".join(args), err))
        return out

    def test_add_and_list(self):
        self.ok("add", "buy milk")
        self.assertEqual(self.ok("list"), "  1 [ ] (p2) buy milk\n")

    def test_empty_list(self):
        self.assertEqual(self.ok("list"), "no tasks\n")

    def test_list_sorted_by_priority_then_id(self):
        self.ok("add", "later", "--priority", "3")
        self.ok("add", "normal")
        self.ok("add", "urgent", "--priority", "1")
        self.ok("add", "normal too")
        ids = [line.split()[0] for line in self.ok("list").splitlines()]
        self.assertEqual(ids, ["3", "2", "4", "1"])

    def test_done_hides_task_unless_all(self):
        self.ok("add", "a")
        self.ok("add", "b")
        self.assertEqual(self.ok("done", "1"), "completed 1: a\n")
        self.assertEqual(self.ok("list"), "  2 [ ] (p2) b\n")
        self.assertEqual(self.ok("list", "--all"), "  1 [x] (p2) a\n  2 [ ] (p2) b\n")

    def test_remove_and_ids_not_reused(self):
        for text in ("a", "b", "c"):
            self.ok("add", text)
        self.assertEqual(self.ok("remove", "1"), "removed 1: a\n")
        self.assertEqual(self.ok("remove", "3"), "removed 3: c\n")
        self.ok("add", "d")
        self.assertEqual(self.ok("list", "--all"), "  2 [ ] (p2) b\n  4 [ ] (p2) d\n")

    def test_stats(self):
        for text in ("a", "b", "c"):
            self.ok("add", text)
        self.ok("done", "2")
        self.assertEqual(self.ok("stats"), "3 tasks, 1 done, 2 open\n")
        self.ok("remove", "1")
        self.assertEqual(self.ok("stats"), "2 tasks, 1 done, 1 open\n")

    def test_unknown_id_exits_2(self):
        self.ok("add", "a")
        for command in ("done", "remove"):
            code, out, err = self.cli(command, "7")
            self.assertEqual(code, 2, command)
            self.assertEqual(err.strip(), "error: no task with id 7", command)

    def test_storage_format_persists(self):
        self.ok("add", "a", "--priority", "1")
        self.ok("add", "b")
        self.ok("done", "1")
        self.ok("remove", "2")
        with open(self.file) as f:
            data = json.load(f)
        self.assertEqual(data, {"next_id": 3, "tasks": [{"id": 1, "text": "a", "priority": 1, "done": True}]})

    def test_end_to_end_with_todo_file_env(self):
        env = {"TODO_FILE": self.file}
        self.assertEqual(run([sys.executable, "todo.py", "add", "x"], env=env).returncode, 0)
        r = run([sys.executable, "todo.py", "stats"], env=env)
        self.assertEqual((r.returncode, r.stdout), (0, "1 tasks, 0 done, 1 open\n"), r.stderr)
