/**
 * Checks every built-in task on the host, without a sandbox: /workspace and /tests
 * (and /tmp) are mapped to a temp dir (tool-call paths are rewritten; test.sh and the tests read
 * WORKSPACE / TESTS_DIR, which default to the sandbox layout).
 */
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadBuiltinSuite, parseTinyToml, type BuiltinTask } from "./load-builtin-suite";
import { SproutTaskFileSchema, ToolCallSchema, type ToolCall } from "./schema";

const tasks = await loadBuiltinSuite();
const tempRoots: string[] = [];

afterAll(async () => {
  await Promise.all(tempRoots.map((r) => fs.rm(r, { recursive: true, force: true })));
});

interface Sandbox {
  task: BuiltinTask;
  root: string;
  workspace: string;
  tests: string;
}

interface StepResult {
  call: ToolCall;
  ok: boolean;
  observation: string;
}

interface Verdict {
  exitCode: number;
  output: string;
  total: number;
  failing: string[];
}

interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], cwd: string, env: Record<string, string>, timeoutMs: number): Promise<ExecResult> {
  return new Promise((resolve) => {
    // NODE_ENV is a required key of ProcessEnv under Next's typings; undefined values are not passed on.
    const fullEnv: NodeJS.ProcessEnv = { ...env, NODE_ENV: process.env.NODE_ENV };
    const options = { cwd, env: fullEnv, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, encoding: "utf8" as const };
    execFile(file, args, options, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 128) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** A clean environment so host settings (PYTHONPATH, a venv) cannot make a task pass or fail. */
function baseEnv(home: string): Record<string, string> {
  return { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", LC_ALL: "C.UTF-8" };
}

async function newSandbox(task: BuiltinTask): Promise<Sandbox> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), `sprout-${task.name}-`));
  tempRoots.push(root);
  const workspace = path.join(root, "workspace");
  await fs.cp(task.workspaceDir, workspace, { recursive: true });
  await fs.mkdir(path.join(root, "tmp"));
  return { task, root, workspace, tests: path.join(root, "tests") };
}

/** A checkpoint of the sandbox: what SPROUT restores when it resumes from an intermediate turn. */
async function fork(sb: Sandbox): Promise<Sandbox> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), `sprout-${sb.task.name}-`));
  tempRoots.push(root);
  const workspace = path.join(root, "workspace");
  await fs.cp(sb.workspace, workspace, { recursive: true });
  await fs.cp(path.join(sb.root, "tmp"), path.join(root, "tmp"), { recursive: true });
  return { task: sb.task, root, workspace, tests: path.join(root, "tests") };
}

/** /tmp is mapped too: concurrent scenarios on one host must not share scratch paths. */
function mapPaths(text: string, sb: Sandbox): string {
  return text.replace(/(?<![\w.$}/-])\/(workspace|tmp)(?![\w.-])/g, (_, dir: string) => path.join(sb.root, dir));
}

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

async function applyStep(sb: Sandbox, call: ToolCall): Promise<StepResult> {
  switch (call.tool) {
    case "bash": {
      const r = await run("/bin/bash", ["-c", mapPaths(call.command, sb)], sb.workspace, baseEnv(sb.root), 30_000);
      // A non-zero exit is an observation (running failing tests is normal), not a broken step.
      return { call, ok: true, observation: `exit ${r.code}\n${r.stdout}${r.stderr}` };
    }
    case "view": {
      const text = await fs.readFile(mapPaths(call.path, sb), "utf8").catch((e: Error) => e);
      return text instanceof Error ? { call, ok: false, observation: text.message } : { call, ok: true, observation: text };
    }
    case "create": {
      const p = mapPaths(call.path, sb);
      await fs.mkdir(path.dirname(p), { recursive: true });
      await fs.writeFile(p, call.content);
      return { call, ok: true, observation: `created ${call.path}` };
    }
    case "edit": {
      const p = mapPaths(call.path, sb);
      const text = await fs.readFile(p, "utf8").catch(() => null);
      if (text === null) return { call, ok: false, observation: `no such file ${call.path}` };
      const n = countOccurrences(text, call.old_str);
      if (n !== 1) return { call, ok: false, observation: `old_str occurs ${n} times in ${call.path}` };
      const at = text.indexOf(call.old_str);
      await fs.writeFile(p, text.slice(0, at) + call.new_str + text.slice(at + call.old_str.length));
      return { call, ok: true, observation: `edited ${call.path}` };
    }
    case "submit":
      return { call, ok: true, observation: "submitted" };
  }
}

async function applySteps(sb: Sandbox, calls: ToolCall[]): Promise<StepResult[]> {
  const results: StepResult[] = [];
  for (const call of calls) results.push(await applyStep(sb, call));
  return results;
}

function failedSteps(results: StepResult[]): string[] {
  return results.filter((r) => !r.ok).map((r) => `${r.call.tool}: ${r.observation}`);
}

/** Tests reach the sandbox only now, as in the real verifier: the agent never sees them. */
async function verify(sb: Sandbox): Promise<Verdict> {
  await fs.rm(sb.tests, { recursive: true, force: true });
  await fs.cp(sb.task.testsDir, sb.tests, { recursive: true });
  const env = { ...baseEnv(sb.root), WORKSPACE: sb.workspace, TESTS_DIR: sb.tests };
  const r = await run("/bin/bash", [path.join(sb.tests, "test.sh")], sb.workspace, env, sb.task.verifier.timeoutMs);
  const output = r.stdout + r.stderr;
  const total = Number(/^Ran (\d+) tests?/m.exec(output)?.[1] ?? 0);
  const failing = [...output.matchAll(/^(test\w*) \([\w.]+\) \.\.\. (?:FAIL|ERROR)$/gm)].map((m) => m[1] ?? "");
  // Failures in setUpClass and import errors show up as "ERROR: ..." headers only.
  for (const m of output.matchAll(/^ERROR: (\S+)/gm)) if (!failing.includes(m[1] ?? "")) failing.push(m[1] ?? "");
  return { exitCode: r.code, output, total, failing };
}

function describeVerdict(v: Verdict): string {
  return `exit ${v.exitCode}, ${v.failing.length}/${v.total} failing\n${v.output.slice(-4000)}`;
}

describe("built-in suite", () => {
  it("has at least 8 tasks with kebab-case names", () => {
    expect(tasks.length).toBeGreaterThanOrEqual(8);
    for (const t of tasks) expect(t.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it("the tiny TOML reader rejects what it does not understand", () => {
    expect(parseTinyToml('a = "x # y" # c\n[s]\nb = 2.5\nc = ["p", "q"]\nd = true')).toEqual({
      a: "x # y",
      s: { b: 2.5, c: ["p", "q"], d: true },
    });
    expect(() => parseTinyToml("a = {x = 1}")).toThrow();
    expect(() => parseTinyToml("[s]\n[s]")).toThrow();
  });

  it("the schema rejects malformed tool calls", () => {
    expect(ToolCallSchema.safeParse({ tool: "edit", path: "/etc/passwd", old_str: "a", new_str: "b" }).success).toBe(false);
    expect(ToolCallSchema.safeParse({ tool: "rm", path: "/workspace/x" }).success).toBe(false);
    expect(ToolCallSchema.safeParse({ tool: "view", path: "/workspace/a/../../etc" }).success).toBe(false);
  });
});

interface ReferenceRun {
  steps: StepResult[];
  verdict: Verdict;
  /** Sandbox state just before reference step i, for every i some mistake replaces. */
  checkpoints: Map<number, Sandbox>;
}

/**
 * One reference run per task, checkpointed before each step a mistake replaces: the
 * mistakes branch from those checkpoints exactly as SPROUT resumes a failed attempt,
 * and the reference run itself shows that continuing from the same checkpoint passes.
 */
async function runReference(task: BuiltinTask): Promise<ReferenceRun> {
  const sb = await newSandbox(task);
  const wanted = new Set(task.mistakes.map((m) => m.atStep));
  const checkpoints = new Map<number, Sandbox>();
  const steps: StepResult[] = [];
  for (const [i, call] of task.referenceSteps.entries()) {
    if (wanted.has(i)) checkpoints.set(i, await fork(sb));
    steps.push(await applyStep(sb, call));
  }
  return { steps, verdict: await verify(sb), checkpoints };
}

// Tasks are independent (own temp dirs, /tmp mapped per sandbox), so all of them run concurrently.
describe.concurrent("tasks", () => {
for (const task of tasks) {
  describe(task.name, () => {
    let referenceRun: Promise<ReferenceRun> | undefined;
    const reference = () => (referenceRun ??= runReference(task));

    it("sprout.json, task.toml and the Harbor layout are well-formed", async () => {
      const dir = path.dirname(task.testsDir);
      const raw: unknown = JSON.parse(await fs.readFile(path.join(dir, "sprout.json"), "utf8"));
      expect(SproutTaskFileSchema.safeParse(raw).success).toBe(true);
      expect(task.title.length).toBeGreaterThan(0);
      expect(task.tags.length).toBeGreaterThan(0);
      const dockerfile = await fs.readFile(path.join(dir, "environment/Dockerfile"), "utf8");
      expect(dockerfile).toContain("FROM sprout-base:bookworm");
      expect(dockerfile).toContain("COPY workspace /workspace");
      const testSh = await fs.readFile(path.join(task.testsDir, "test.sh"), "utf8");
      expect(testSh).toContain("python3 -m unittest discover");
      const testFiles = (await fs.readdir(task.testsDir)).filter((f) => /^test_.*\.py$/.test(f));
      expect(testFiles.length).toBeGreaterThan(0);
      // The agent never sees /tests, so a step that touches it could not be replayed in a sandbox.
      for (const call of [...task.referenceSteps, ...task.mistakes.flatMap((m) => m.actions)]) {
        expect(JSON.stringify(call)).not.toMatch(/(?<![\w.$}/-])\/tests\b/);
      }
    });

    it("the initial state fails the verifier", async () => {
      const v = await verify(await newSandbox(task));
      expect(v.exitCode, describeVerdict(v)).not.toBe(0);
      expect(v.failing.length, describeVerdict(v)).toBeGreaterThan(0);
    });

    it("the reference trajectory passes the verifier", async () => {
      const { steps, verdict } = await reference();
      expect(failedSteps(steps)).toEqual([]);
      expect(verdict.exitCode, describeVerdict(verdict)).toBe(0);
      expect(verdict.total, "at least 6 test cases make a partial score informative").toBeGreaterThanOrEqual(6);
    });

    it("solution/solve.sh passes the verifier", async () => {
      const sb = await newSandbox(task);
      const env = { ...baseEnv(sb.root), WORKSPACE: sb.workspace };
      const r = await run("/bin/bash", [task.solutionPath], sb.workspace, env, 30_000);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const v = await verify(sb);
      expect(v.exitCode, describeVerdict(v)).toBe(0);
    });

    for (const mistake of task.mistakes) {
      it(`mistake ${mistake.id} (instead of step ${mistake.atStep}) fails the verifier`, async () => {
        const { steps, verdict, checkpoints } = await reference();
        // Resuming from this checkpoint with the reference is the reference run itself.
        expect(failedSteps(steps.slice(0, mistake.atStep))).toEqual([]);
        expect(verdict.exitCode, describeVerdict(verdict)).toBe(0);
        const checkpoint = checkpoints.get(mistake.atStep);
        if (!checkpoint) throw new Error(`no checkpoint before step ${mistake.atStep}`);
        const sb = await fork(checkpoint);
        await applySteps(sb, [...mistake.actions, ...task.referenceSteps.slice(mistake.atStep + 1)]);
        const bad = await verify(sb);
        expect(bad.exitCode, describeVerdict(bad)).not.toBe(0);
        for (const name of mistake.failingTests ?? []) expect(bad.failing, describeVerdict(bad)).toContain(name);
      });
    }
  });
}
});
