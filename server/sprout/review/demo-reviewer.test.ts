import { describe, expect, it } from "vitest";
import type { TurnId } from "../../db/ids";
import { guidanceAgainst } from "../../policy/demo-policy";
import type { Mistake } from "../../tasks/builtin/schema";
import { createDemoReviewer } from "./demo-reviewer";
import { parseFailures } from "./feedback-failures";
import type { AttemptTurn, FailedAttempt, ReviewInput } from "./review-input";
import { filesChangedByCommand } from "./trajectory-files";

function turn(index: number, tool: string, call: string, detail = "", observation = "ok"): AttemptTurn {
  return { index, turnId: `t${index}` as TurnId, call, tool, detail, author: "agent", observation, isError: false, resumable: true };
}

// A small trajectory: it reads, writes a parser and a report, runs the program, and cleans up.
const turns: AttemptTurn[] = [
  turn(0, "bash", "cd /workspace && ls -R", "cd /workspace && ls -R", "pipeline run.py input"),
  turn(1, "view", "view /workspace/pipeline/parse.py", "", "1\tdef parse_sales(path):\n2\t    ..."),
  turn(2, "create", "create /workspace/pipeline/parse.py (300 chars)", "import csv\n\ndef parse_sales(path):\n    rows = []\n    return rows\n"),
  turn(3, "edit", "edit /workspace/pipeline/report.py: def render(rows): → def render_markdown(rows):", "def render_markdown(rows):\n    rows = sorted(rows, reverse=True)\n"),
  turn(4, "bash", "cd /workspace && python3 run.py", "cd /workspace && python3 run.py", "done"),
  turn(5, "bash", "cd /workspace && rm -rf out && ls", "cd /workspace && rm -rf out && ls"),
  turn(6, "submit", "submit"),
];

const sortFeedback = `1 of 9 tests failed
FAIL: test_report_sorted_by_revenue_desc (test_pipeline.ReportTests.test_report_sorted_by_revenue_desc)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/tests/test_pipeline.py", line 68, in test_report_sorted_by_revenue_desc
    self.assertEqual(render_markdown(by_region(rows)), EXPECTED_REPORT)
AssertionError: '| West | 1 |' != '| South | 3 |'`;

function attempt(feedback: string | null, extra: Partial<FailedAttempt> = {}): FailedAttempt {
  return { label: "A", rolloutId: "r1" as FailedAttempt["rolloutId"], reward: 0, partialScore: 0.89, feedback, resumedAfter: null, guidance: null, turns, ...extra };
}

async function review(input: ReviewInput, guidance: "tool-call" | "text" = "text", maxBranches = 2) {
  const reply = await createDemoReviewer().review(input, [{ role: "user", content: "review" }], { maxBranches, guidance, seed: 1 });
  return JSON.parse(reply.text) as { analysis: string; branches: { attempt: string; turn: number; starting_turn: { kind: string; text?: string; tool?: string; arguments?: Record<string, unknown>; message?: string } }[] };
}

describe("reading verifier feedback", () => {
  it("finds each failing test and what it points at", () => {
    const [f] = parseFailures(sortFeedback);
    expect(f).toMatchObject({ test: "test_report_sorted_by_revenue_desc", testClass: "ReportTests", frames: [], raisedOnPurpose: false });
    expect(f!.identifiers).toEqual(expect.arrayContaining(["render_markdown", "by_region"]));
    expect(f!.words).toEqual(expect.arrayContaining(["report", "sorted", "revenue"]));
    expect(f!.headline).toMatch(/^AssertionError/);
  });

  it("tells a validator that raised on purpose from code that crashed, and keeps workspace frames", () => {
    const [f] = parseFailures(`ERROR: test_bind (test_config.CallerTests.test_bind)
Traceback (most recent call last):
  File "/tests/test_config.py", line 93, in test_bind
    self.assertEqual(server.bind_address(), "127.0.0.1:8080")
  File "/workspace/app/config.py", line 33, in _validate
    raise ConfigError(f"config key {dotted} must be int")
app.config.ConfigError: config key server.port must be int, got str`);
    expect(f).toMatchObject({ frames: ["app/config.py"], raisedOnPurpose: true, modules: ["app/config"] });
  });
});

describe("what a shell command changes", () => {
  it("follows rm, mv, cp, sed -i, redirections and scripts that write, not scratch files or scripts that only run", () => {
    expect(filesChangedByCommand(`cd /workspace && rm docs/README.txt && (bash build.sh; echo "exit=$?")`)).toEqual(["docs/README.txt"]);
    expect(filesChangedByCommand("cd /workspace && bash -x build.sh 2>&1 | head -20")).toEqual([]);
    expect(filesChangedByCommand("cd /workspace && mv config/app.ini config/app.ini.bak")).toEqual(["config/app.ini", "config/app.ini.bak"]);
    expect(filesChangedByCommand("sed -i -e '/^$/d' input/sales.csv && cat input/sales.csv")).toEqual(["input/sales.csv"]);
    expect(filesChangedByCommand("cd /workspace && python3 show_config.py | tee /tmp/before.txt")).toEqual([]);
    expect(filesChangedByCommand("cd /workspace && python3 - <<'EOF'\nimport json\njson.dump({}, open('config/app.json', 'w'))\nEOF")).toEqual(["config/app.json"]);
    expect(filesChangedByCommand("cd /workspace && rm -f *.py && ls")).toEqual(["*.py"]);
  });
});

describe("the demo reviewer", () => {
  const input = (attempts: FailedAttempt[], mode: ReviewInput["mode"] = "feedback"): ReviewInput => ({ taskName: "t", instruction: "fix it", mode, attempts });

  it("maps a failing test to the files its assertion exercises and resumes before the first change to them", async () => {
    const answer = await review(input([attempt(sortFeedback)]));
    // render_markdown was written in report.py at turn 3: resume after turn 2. Both branches form one group there.
    expect(answer.branches).toHaveLength(2);
    expect(answer.branches.map((b) => b.turn)).toEqual([2, 2]);
    const text = answer.branches[0]!.starting_turn.text!;
    expect(text).toContain("test_report_sorted_by_revenue_desc");
    expect(text).toContain("pipeline/report.py");
    // What the demo policy reads from it: the mistake that wrote report.py and fails this test is addressed.
    const mistake: Mistake = { id: "sort", atStep: 3, description: "", symptom: "", failingTests: ["test_report_sorted_by_revenue_desc"], actions: [{ tool: "edit", path: "/workspace/pipeline/report.py", old_str: "a", new_str: "b" }] };
    expect(guidanceAgainst(mistake, text)).toBe(1);
  });

  it("names the file a failure mentions when a shell command removed it, and resumes just before that command", async () => {
    const feedback = `1 of 5 tests failed
FAIL: test_outputs_kept (test_pipeline.DataTests.test_outputs_kept)
Traceback (most recent call last):
  File "/tests/test_pipeline.py", line 9, in test_outputs_kept
    self.assertTrue(os.path.isdir(OUT), "out/ was removed")
AssertionError: False is not true : out/report.md was removed`;
    const answer = await review(input([attempt(feedback)]), "tool-call", 1);
    expect(answer.branches[0]).toMatchObject({ turn: 4, starting_turn: { kind: "tool_call" } });
    expect(answer.branches[0]!.starting_turn.message).toContain("out/report.md");
  });

  it("falls back to the earliest change when the feedback names nothing it can place", async () => {
    const answer = await review(input([attempt("FAIL: test_something (t.T.test_something)\nAssertionError: 1 != 2")]), "text", 1);
    expect(answer.branches[0]!.turn).toBe(1);
    expect(answer.branches[0]!.starting_turn.text).toContain("test_something");
  });

  it("with the reward only, spreads branches over the changes and cannot say what failed", async () => {
    const answer = await review(input([attempt(null, { partialScore: null })], "reward-only"), "text", 2);
    expect(answer.branches.map((b) => b.turn)).toEqual([4, 1]);
    for (const b of answer.branches) expect(b.starting_turn.text).not.toMatch(/test_/);
  });

  it("does not resume a second time from a boundary a failed branch already tried", async () => {
    const root = attempt(sortFeedback);
    const branch = attempt(sortFeedback, { label: "B", resumedAfter: 2, guidance: "re-check report.py", turns: turns.map((t) => ({ ...t })) });
    const other = attempt(sortFeedback, { label: "C", turns: turns.map((t) => ({ ...t, turnId: `c${t.index}` as TurnId })) });
    const answer = await review(input([root, branch, other]), "text", 1);
    expect(answer.branches[0]!.attempt).toBe("C");
  });
});
