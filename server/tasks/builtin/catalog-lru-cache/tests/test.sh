#!/bin/bash
# Verifier entrypoint (Harbor convention): run as `bash /tests/test.sh` with cwd /workspace.
# WORKSPACE and TESTS_DIR default to the sandbox layout; the repo's suite test overrides
# them to check the task on the host.
TESTS_DIR="${TESTS_DIR:-/tests}"
WORKSPACE="${WORKSPACE:-/workspace}"
export WORKSPACE
cd "$WORKSPACE" || exit 1
# Keep the verifier from leaving __pycache__ litter in the graded workspace, and its
# scratch files (tempfile honours TMPDIR) in a private directory removed afterwards.
export PYTHONDONTWRITEBYTECODE=1
TMPDIR="$(mktemp -d)"
export TMPDIR
python3 -m unittest discover -s "$TESTS_DIR" -p 'test_*.py' -v
status=$?
rm -rf "$TMPDIR"
if [ -d /logs/verifier ]; then
  if [ "$status" -eq 0 ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
fi
exit "$status"
