import { describe, expect, it } from "vitest";
import { junitCounts, parseVerifierRun } from "./parse-result";

const base = { exitCode: 0, timedOut: false, durationMs: 12 };

const UNITTEST_FAIL = `test_add (test_units.T.test_add) ... ok
test_convert (test_units.T.test_convert) ... FAIL
test_parse (test_units.T.test_parse) ... ERROR

======================================================================
ERROR: test_parse (test_units.T.test_parse)
----------------------------------------------------------------------
Traceback (most recent call last):
ValueError: bad unit 'kg2'

======================================================================
FAIL: test_convert (test_units.T.test_convert)
----------------------------------------------------------------------
AssertionError: 1000.0 != 1.0

----------------------------------------------------------------------
Ran 3 tests in 0.004s

FAILED (failures=1, errors=1)
`;

describe("parseVerifierRun", () => {
  it("scores Python unittest output: reward from the exit code, partial score from the counts, failures as feedback", () => {
    const r = parseVerifierRun({ ...base, exitCode: 1, output: UNITTEST_FAIL });
    expect(r).toMatchObject({ reward: 0, passed: 1, total: 3 });
    expect(r.partialScore).toBeCloseTo(1 / 3);
    expect(r.feedback).toContain("2 of 3 tests failed");
    expect(r.feedback).toContain("FAIL: test_convert (test_units.T.test_convert)");
    expect(r.feedback).toContain("AssertionError: 1000.0 != 1.0");
    expect(r.feedback).toContain("ValueError: bad unit 'kg2'");
  });

  it("passes when every test passes", () => {
    const r = parseVerifierRun({ ...base, output: "test_a ... ok\n\n---\nRan 7 tests in 0.1s\n\nOK\n" });
    expect(r).toMatchObject({ reward: 1, partialScore: 1, passed: 7, total: 7, feedback: "all 7 tests passed" });
  });

  it("reads pytest summaries and JUnit XML", () => {
    expect(parseVerifierRun({ ...base, exitCode: 1, output: "===== 2 failed, 6 passed in 0.31s =====" })).toMatchObject({ passed: 6, total: 8, reward: 0 });
    expect(junitCounts('<testsuites><testsuite name="a" tests="5" failures="1" errors="1" skipped="1"></testsuite></testsuites>')).toEqual({ passed: 2, total: 4 });
  });

  it("prefers a reward file the tests wrote (Harbor's /logs/verifier/reward.txt)", () => {
    expect(parseVerifierRun({ ...base, exitCode: 0, output: "", rewardFile: "0\n" }).reward).toBe(0);
    expect(parseVerifierRun({ ...base, exitCode: 3, output: "", rewardFile: "1" }).reward).toBe(1);
  });

  it("a timeout scores zero and says so", () => {
    const r = parseVerifierRun({ ...base, exitCode: -1, timedOut: true, output: "test_slow ... " });
    expect(r.reward).toBe(0);
    expect(r.feedback).toMatch(/^the tests did not finish within the time limit/);
  });

  it("cuts long output", () => {
    const r = parseVerifierRun({ ...base, exitCode: 1, output: "x\n".repeat(50_000) });
    expect(r.feedback.length).toBeLessThan(4200);
  });
});
