/** The verifier's verdict on one state. */
export interface VerifierResult {
  /** 1 when every test passed, else 0 (or the task's own reward file). */
  reward: number;
  /** tests passed / tests run, when the output says; else the reward */
  partialScore: number;
  passed: number | null;
  total: number | null;
  /** failing tests and their messages, cut to a size a reviewer can read */
  feedback: string;
  exitCode: number;
  timedOut: boolean;
  durationMs: number;
}

const FEEDBACK_CHARS = 4000;

function cut(text: string, max = FEEDBACK_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} more characters of verifier output cut]`;
}

/** Counts from Python unittest's verbose output ("Ran N tests", "FAILED (failures=a, errors=b)"). */
function unittestCounts(out: string): { passed: number; total: number } | null {
  const ran = /^Ran (\d+) tests? in/m.exec(out);
  if (!ran) return null;
  const total = Number(ran[1]);
  const failed = /^FAILED \(([^)]*)\)/m.exec(out);
  let bad = 0;
  if (failed) for (const m of failed[1]!.matchAll(/(failures|errors|unexpected successes)=(\d+)/g)) bad += Number(m[2]);
  const skipped = /skipped=(\d+)/.exec(failed?.[1] ?? /^OK \(([^)]*)\)/m.exec(out)?.[1] ?? "");
  const counted = total - (skipped ? Number(skipped[1]) : 0);
  return { passed: Math.max(0, counted - bad), total: counted };
}

/** Counts from pytest's summary line ("=== 2 failed, 5 passed in 0.3s ==="). */
function pytestCounts(out: string): { passed: number; total: number } | null {
  const line = /^=+ (.*\b(passed|failed|error)\b.*) in [\d.]+s/m.exec(out);
  if (!line) return null;
  const n = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(line[1]!)?.[1] ?? 0);
  const passed = n("passed");
  return { passed, total: passed + n("failed") + n("errors?") };
}

/** Counts from a JUnit XML report. */
export function junitCounts(xml: string): { passed: number; total: number } | null {
  let total = 0;
  let bad = 0;
  let found = false;
  for (const m of xml.matchAll(/<testsuite\b([^>]*)>/g)) {
    const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(m[1]!)?.[1] ?? 0);
    total += attr("tests") - attr("skipped");
    bad += attr("failures") + attr("errors");
    found = true;
  }
  return found ? { passed: Math.max(0, total - bad), total } : null;
}

/** The failure sections of unittest/pytest output, or the output's tail. */
function failures(out: string): string {
  const sections = out.split(/^(?==+\n(?:FAIL|ERROR): )/m).filter((s) => /^=+\n(FAIL|ERROR): /.test(s));
  if (sections.length > 0) return sections.map((s) => s.replace(/^=+\n/, "").replace(/\n-{10,}\nRan \d+[\s\S]*$/, "").trim()).join("\n\n");
  const pytest = /^=+ FAILURES =+$([\s\S]*?)^=+ short test summary/m.exec(out);
  if (pytest) return pytest[1]!.trim();
  return out.trim().split("\n").slice(-40).join("\n");
}

export interface RawVerifierRun {
  output: string;
  exitCode: number;
  timedOut: boolean;
  durationMs: number;
  /** contents of a reward file the tests wrote (Harbor: /logs/verifier/reward.txt), if any */
  rewardFile?: string | null;
  junitXml?: string | null;
}

export function parseVerifierRun(run: RawVerifierRun): VerifierResult {
  const counts = (run.junitXml ? junitCounts(run.junitXml) : null) ?? unittestCounts(run.output) ?? pytestCounts(run.output);
  const fileReward = run.rewardFile != null && run.rewardFile.trim() !== "" ? Number(run.rewardFile.trim()) : NaN;
  const reward = run.timedOut ? 0 : Number.isFinite(fileReward) ? fileReward : run.exitCode === 0 ? 1 : 0;
  const partialScore = counts && counts.total > 0 ? counts.passed / counts.total : reward;
  let feedback: string;
  if (run.timedOut) feedback = `the tests did not finish within the time limit\n${failures(run.output)}`;
  else if (reward >= 1) feedback = counts ? `all ${counts.total} tests passed` : "the verifier passed";
  else feedback = `${counts ? `${counts.total - counts.passed} of ${counts.total} tests failed` : `the verifier exited with ${run.exitCode}`}\n${failures(run.output)}`;
  return {
    reward,
    partialScore,
    passed: counts?.passed ?? null,
    total: counts?.total ?? null,
    feedback: cut(feedback),
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    durationMs: run.durationMs,
  };
}
