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


import hashlib
import shutil
import tarfile
import tempfile

PKG = "tally-1.4.2"


def build_copy():
    """Build in a private copy so the tests never depend on (or change) each other's state."""
    tmp = tempfile.mkdtemp(prefix="tally-build-")
    ws = os.path.join(tmp, "ws")
    shutil.copytree(WORKSPACE, ws, symlinks=True)
    return ws, run(["bash", "build.sh"], cwd=ws)


class BuildTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ws, cls.result = build_copy()
        cls.stage = os.path.join(cls.ws, "dist", PKG)
        cls.tarball = os.path.join(cls.ws, "dist", PKG + ".tar.gz")
        cls.extracted = tempfile.mkdtemp(prefix="tally-extract-")
        if os.path.isfile(cls.tarball):
            with tarfile.open(cls.tarball) as tf:
                tf.extractall(cls.extracted)

    def shipped_files(self):
        out = []
        for dirpath, _, files in os.walk(self.stage):
            for f in files:
                out.append(os.path.relpath(os.path.join(dirpath, f), self.stage))
        return sorted(out)

    def test_build_succeeds(self):
        self.assertEqual(self.result.returncode, 0, self.result.stdout + self.result.stderr)

    def test_tarball_has_single_top_level_dir(self):
        self.assertTrue(os.path.isfile(self.tarball), "dist/%s.tar.gz missing; dist has %s" % (PKG, os.listdir(os.path.join(self.ws, "dist"))))
        with tarfile.open(self.tarball) as tf:
            names = tf.getnames()
        bad = [n for n in names if n != PKG and not n.startswith(PKG + "/")]
        self.assertEqual(bad, [], "entries outside %s/" % PKG)
        self.assertIn(PKG + "/bin/tally", names)

    def test_launcher_is_executable_and_reports_version(self):
        launcher = os.path.join(self.extracted, PKG, "bin", "tally")
        self.assertTrue(os.path.isfile(launcher), "bin/tally missing from the archive")
        self.assertTrue(os.access(launcher, os.X_OK), "bin/tally is not executable")
        r = run([launcher, "--version"], cwd=self.extracted)
        self.assertEqual(r.stdout.strip(), "tally 1.4.2", r.stderr)

    def test_launcher_counts(self):
        sample = os.path.join(self.extracted, "sample.txt")
        with open(sample, "w") as f:
            f.write("one two\nthree\n")
        r = run(["sh", os.path.join(self.extracted, PKG, "bin", "tally"), "count", sample], cwd=self.extracted)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("2 3 14 "), r.stdout)

    def test_no_tests_or_pycache_shipped(self):
        files = self.shipped_files()
        self.assertIn("lib/tally/cli.py", files)
        bad = [f for f in files if "__pycache__" in f or "/tests/" in f]
        self.assertEqual(bad, [])

    def test_no_stale_files_from_earlier_builds(self):
        self.assertNotIn("lib/tally/old_module.py", self.shipped_files())

    def test_manifest_lists_every_file_sorted_with_digests(self):
        path = os.path.join(self.stage, "MANIFEST")
        self.assertTrue(os.path.isfile(path), "MANIFEST missing")
        with open(path) as f:
            lines = [l.rstrip("\n") for l in f if l.strip()]
        entries = [l.split("  ", 1) for l in lines]
        paths = [p for _, p in entries]
        self.assertEqual(paths, sorted(paths), "MANIFEST is not sorted by path")
        expected = [p for p in self.shipped_files() if p != "MANIFEST"]
        self.assertEqual(paths, expected)
        for digest, p in entries:
            with open(os.path.join(self.stage, p), "rb") as f:
                self.assertEqual(digest, hashlib.sha256(f.read()).hexdigest(), p)

    def test_rebuild_gives_same_manifest(self):
        with open(os.path.join(self.stage, "MANIFEST")) as f:
            first = f.read()
        again = run(["bash", "build.sh"], cwd=self.ws)
        self.assertEqual(again.returncode, 0, again.stderr)
        with open(os.path.join(self.stage, "MANIFEST")) as f:
            self.assertEqual(f.read(), first)


class FailureTests(unittest.TestCase):
    def test_build_fails_when_an_input_is_missing(self):
        tmp = tempfile.mkdtemp(prefix="tally-broken-")
        ws = os.path.join(tmp, "ws")
        shutil.copytree(WORKSPACE, ws, symlinks=True)
        os.remove(os.path.join(ws, "docs", "README.txt"))
        r = run(["bash", "build.sh"], cwd=ws)
        self.assertNotEqual(r.returncode, 0, "build.sh succeeded without docs/README.txt")
        self.assertFalse(os.path.exists(os.path.join(ws, "dist", PKG + ".tar.gz")), "a half-built archive was produced")
