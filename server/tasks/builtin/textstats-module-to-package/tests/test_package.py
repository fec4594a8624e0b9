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


import glob
import importlib
import re

GOLD_CLI = 'words: 58\nsentences: 5\nflesch: 74.00\ntop words:\n  keeper 2\n  lighthouse 2\n  again 1\n  awake 1\n  back 1\n'
GOLD_REPORT = 'notes.txt: flesch=92.7 top=cache, release, do\nsample.txt: flesch=74.0 top=keeper, lighthouse, again\n'
GOLD_API = {'tok': ['the', 'lighthouse', 'keeper', 'climbed', 'the', 'stairs', 'every', 'evening', 'he', 'lit', 'the', 'lamp'], 'sent': 5, 'freq': [['keeper', 2], ['lighthouse', 2], ['again', 1], ['awake', 1], ['back', 1], ['blinked', 1]], 'flesch': 74.0, 'syl': [2, 1, 1, 1, 1]}
PUBLIC = {
    "tokenize": "tokens",
    "sentences": "tokens",
    "word_freq": "freq",
    "count_syllables": "readability",
    "flesch_reading_ease": "readability",
    "summarize": "cli",
}


def sample():
    with open(os.path.join(WORKSPACE, "docs", "sample.txt"), encoding="utf-8") as f:
        return f.read()


class LayoutTests(unittest.TestCase):
    def test_package_files_exist_and_module_removed(self):
        for name in ("__init__", "tokens", "freq", "readability", "cli", "__main__"):
            self.assertTrue(os.path.isfile(os.path.join(WORKSPACE, "textstats", name + ".py")), name + ".py missing")
        self.assertFalse(os.path.exists(os.path.join(WORKSPACE, "textstats.py")), "textstats.py still exists")

    def test_each_function_defined_once(self):
        counts = {}
        for path in glob.glob(os.path.join(WORKSPACE, "**", "*.py"), recursive=True):
            with open(path, encoding="utf-8") as f:
                for name in re.findall(r"^def (\w+)", f.read(), re.M):
                    counts.setdefault(name, []).append(os.path.relpath(path, WORKSPACE))
        dupes = {k: v for k, v in counts.items() if len(v) > 1 and k != "main"}
        self.assertEqual(dupes, {})

    def test_public_api_comes_from_submodules(self):
        import textstats
        for name, module in PUBLIC.items():
            sub = importlib.import_module("textstats." + module)
            self.assertIs(getattr(textstats, name), getattr(sub, name), name)
        self.assertIs(textstats.STOPWORDS, importlib.import_module("textstats.freq").STOPWORDS)

    def test_submodules_import_on_their_own(self):
        # One interpreter, but the package is dropped from sys.modules before each import,
        # so every submodule is imported first, as in a fresh interpreter.
        script = (
            "import importlib, sys\n"
            "for m in ('tokens', 'freq', 'readability', 'cli'):\n"
            "    for k in [k for k in sys.modules if k == 'textstats' or k.startswith('textstats.')]:\n"
            "        del sys.modules[k]\n"
            "    importlib.import_module('textstats.' + m)\n"
        )
        r = run([sys.executable, "-c", script])
        self.assertEqual(r.returncode, 0, r.stderr)


class BehaviourTests(unittest.TestCase):
    def test_api_results_unchanged(self):
        import textstats
        s = sample()
        got = {
            "tok": textstats.tokenize(s)[:12],
            "sent": len(textstats.sentences(s)),
            "freq": [list(p) for p in textstats.word_freq(s, 6)],
            "flesch": textstats.flesch_reading_ease(s),
            "syl": [textstats.count_syllables(w) for w in ["lighthouse", "stairs", "quiet", "name", "the"]],
        }
        self.assertEqual(got, GOLD_API)

    def test_python_m_textstats_output_unchanged(self):
        r = run([sys.executable, "-m", "textstats", "docs/sample.txt"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, GOLD_CLI)

    def test_report_output_unchanged(self):
        r = run([sys.executable, "report.py"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, GOLD_REPORT)
