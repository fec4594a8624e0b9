import { promptTokens, textTokens } from "../../policy/token-count";
import { parseFailures, type TestFailure } from "./feedback-failures";
import type { AttemptTurn, FailedAttempt, ReviewInput } from "./review-input";
import type { Reviewer } from "./reviewer";
import { globMatcher, sameFile, turnFiles, type TurnFiles } from "./trajectory-files";

/**
 * The demo policy's reviewer: a rule-based analyst. It knows only what a
 * reviewer is shown — the failed trajectories (tool calls, what they wrote,
 * observations) and, unless the input is reward-only, the verifier's feedback —
 * never the task's reference solution or the policy's plan.
 *
 * With feedback it maps each failing test to the files it exercises: workspace
 * files in its traceback, files and modules its messages name, the functions its
 * assertion calls (found where the trajectory defined or imported them), and
 * the words of its name matched against file names. It resumes just before the
 * first turn that changed the implicated files, and writes a starting turn that
 * names the failing tests, what they report, and the files to re-check. A
 * failure it cannot localize falls back to the earliest change of a file it
 * relates to, or to the attempt's earliest change. A branch that was already
 * tried from the same boundary ranks last.
 *
 * With the reward only it has nothing to localize with: it spreads branches over
 * the attempts' changes (late ones first) with generic advice, which is why that
 * ablation loses.
 */

/** A change of state: the turn and the files (or globs) it changed. */
interface Change {
  position: number;
  turn: AttemptTurn;
  files: string[];
}

interface Suspect {
  failures: TestFailure[];
  files: string[];
  /** the first turn that changed one of the files */
  position: number;
  why: string;
}

interface Plan {
  attempt: FailedAttempt;
  /** position of the boundary turn in the attempt (resume after it) */
  boundary: number;
  suspects: Suspect[];
  tried: boolean;
  localized: boolean;
}

function stem(file: string): string[] {
  const base = file.split("/").pop() ?? file;
  const name = base.replace(/\..*$/, "");
  const dirs = file.split("/").slice(0, -1);
  return [name, ...name.split(/[_-]/), ...dirs].map((s) => s.toLowerCase()).filter((s) => s.length >= 2 && s !== "__init__");
}

function changesOf(attempt: FailedAttempt, files: TurnFiles[]): Change[] {
  return attempt.turns
    .map((turn, position) => ({ position, turn, files: files[position]!.changed }))
    .filter((c) => c.files.length > 0 && c.turn.author !== "hint");
}

/** What the analysis knows about the attempt's changed files. */
interface FileFacts {
  /** identifier → files that define it (seen written, viewed, or imported from) */
  defs: Map<string, Set<string>>;
  /** file → everything the attempt wrote to it */
  written: Map<string, string>;
  /** names defined in each file */
  definedIn: Map<string, string[]>;
}

const isOwnTest = (file: string) => /(^|\/)(test_[^/]*|[^/]*_test\.py|selfcheck[^/]*)$/.test(file);

/** How strongly a failing test points at a file the attempt changed. */
function scoreFile(file: string, f: TestFailure, facts: FileFacts): { score: number; why: string[] } {
  let score = 0;
  const why: string[] = [];
  const glob = globMatcher(file);
  // A named file matches the file itself, a glob that covers it, or a directory the attempt removed or moved.
  const matches = (named: string) => (glob ? glob(named) || glob(named.split("/").pop()!) : sameFile(named, file) || named.startsWith(`${file}/`));
  const frameAt = f.frames.findIndex(matches);
  if (frameAt >= 0) {
    const innermost = frameAt === f.frames.length - 1;
    // Code that raised on purpose (a validator) is reporting bad input, not misbehaving itself.
    score += innermost ? (f.raisedOnPurpose ? 3 : 7) : 5;
    why.push("its traceback runs through it");
  }
  // The input the raising code read: a file whose path that code mentions.
  const raiser = f.raisedOnPurpose ? f.frames.at(-1) : undefined;
  if (raiser && !glob && !sameFile(raiser, file)) {
    const raiserText = [...facts.written.entries()].filter(([w]) => sameFile(raiser, w)).map(([, t]) => t).join("\n");
    const base = file.split("/").pop()!;
    if (raiserText.includes(base)) {
      score += 6;
      why.push(`${raiser} raised while reading it`);
    }
  }
  if (f.namedFiles.some(matches)) {
    score += 5;
    why.push("the failure names it");
  }
  if (glob) return { score, why };
  if (f.modules.some((m) => sameFile(`${m}.py`, file) || sameFile(`${m}/__init__.py`, file))) {
    score += 5;
    why.push("the failure names its module");
  }
  const ids = f.identifiers.filter((id) => [...(facts.defs.get(id) ?? [])].some((d) => sameFile(d, file)));
  if (ids.length > 0) {
    score += Math.min(6, 3 * ids.length);
    why.push(`the test calls ${ids.slice(0, 3).join(", ")}, defined there`);
  }
  const stems = stem(file);
  const ext = file.split(".").pop()!.toLowerCase();
  if (f.words.some((w) => stems.includes(w) || w === ext)) {
    score += 2;
    why.push("the test is named after it");
  }
  // Functions whose names share the test's words: `test_list_sorted…` exercises `cmd_list`.
  const exercised = (facts.definedIn.get(file) ?? []).filter((name) => name.toLowerCase().split("_").some((part) => part.length >= 4 && f.words.includes(part)));
  if (exercised.length > 0) {
    score += Math.min(4, 2 * exercised.length);
    why.push(`the test exercises ${exercised.slice(0, 2).join(", ")}`);
  }
  const lower = (facts.written.get(file) ?? "").toLowerCase();
  score += Math.min(2, f.words.filter((w) => w.length >= 4 && lower.includes(w)).length);
  // The agent's own checks rarely break the verifier's tests.
  if (isOwnTest(file)) score -= 4;
  // A validator that raised on purpose is as likely right as its input is wrong.
  if (raiser && sameFile(raiser, file)) score = Math.floor(score / 2);
  return { score, why };
}

function analyse(attempt: FailedAttempt, all: FailedAttempt[]): Plan {
  const files = attempt.turns.map((t) => turnFiles(t));
  const changes = changesOf(attempt, files);
  const own = (c: Change) => attempt.resumedAfter === null || c.turn.index > attempt.resumedAfter;
  const defs = new Map<string, Set<string>>();
  const definedIn = new Map<string, string[]>();
  for (const tf of files) {
    for (const [name, file] of tf.defines) {
      defs.set(name, (defs.get(name) ?? new Set()).add(file));
      definedIn.set(file, [...(definedIn.get(file) ?? []), name]);
    }
  }
  const changedFiles = [...new Set(changes.flatMap((c) => c.files))];
  const written = new Map(changedFiles.map((f) => [f, changes.filter((c) => c.files.includes(f)).map((c) => c.turn.detail).join("\n")]));
  const facts: FileFacts = { defs, written, definedIn };
  // Where a file's code was first touched; for a branch, within its own turns when it touched the file itself,
  // so the guidance that branch was given stays in the restored context.
  const firstChange = (file: string) => {
    const touching = changes.filter((c) => c.files.includes(file));
    return (touching.find(own) ?? touching[0])?.position ?? Infinity;
  };

  const failures = parseFailures(attempt.feedback ?? "");
  const groups = new Map<string, Suspect>();
  const unexplained: { failure: TestFailure; related: string[] }[] = [];
  for (const f of failures) {
    const scored = changedFiles.map((file) => ({ file, ...scoreFile(file, f, facts) })).filter((s) => s.score > 0);
    const best = Math.max(0, ...scored.map((s) => s.score));
    const implicated = scored.filter((s) => s.score >= 3 && s.score >= 0.6 * best).sort((x, y) => y.score - x.score);
    if (implicated.length === 0) {
      unexplained.push({ failure: f, related: scored.map((s) => s.file) });
      continue;
    }
    const key = implicated.map((s) => s.file).sort().join(",");
    const group = groups.get(key);
    if (group) group.failures.push(f);
    else {
      groups.set(key, {
        failures: [f],
        files: implicated.map((s) => s.file),
        position: Math.min(...implicated.map((s) => firstChange(s.file))),
        why: implicated[0]!.why.join("; "),
      });
    }
  }
  const suspects = [...groups.values()];
  if (unexplained.length > 0) {
    // Cannot localize: the earliest change of a file the failure relates to, else the attempt's earliest change.
    const related = [...new Set(unexplained.flatMap((u) => u.related))];
    const ownChanges = changes.filter(own);
    const fallback = related.length > 0 ? Math.min(...related.map(firstChange)) : (ownChanges[0] ?? changes[0])?.position;
    if (fallback !== undefined && Number.isFinite(fallback)) {
      const later = changes.filter((c) => c.position >= fallback).flatMap((c) => c.files);
      const counts = new Map<string, number>();
      for (const f of later) counts.set(f, (counts.get(f) ?? 0) + 1);
      const named = related.length > 0 ? related : [...counts.entries()].sort((x, y) => y[1] - x[1]).map(([f]) => f).slice(0, 5);
      suspects.push({ failures: unexplained.map((u) => u.failure), files: named, position: fallback, why: "the feedback does not point at one file, so every change from there on is suspect" });
    }
  }
  let first = Math.min(...suspects.map((s) => s.position));
  if (!Number.isFinite(first)) first = changes.find(own)?.position ?? changes[0]?.position ?? attempt.turns.length - 1;
  let boundary = first - 1;
  while (boundary >= 0 && !attempt.turns[boundary]!.resumable) boundary -= 1;
  const boundaryId = attempt.turns[boundary]?.turnId;
  const tried = all.some((other) => other.resumedAfter !== null && other.turns.find((t) => t.index === other.resumedAfter)?.turnId === boundaryId);
  return { attempt, boundary, suspects, tried, localized: unexplained.length === 0 && suspects.length > 0 };
}

function describe(f: TestFailure): string {
  return f.headline ? `${f.test ?? "the tests"} (${f.headline.slice(0, 140)})` : (f.test ?? "the tests");
}

/** The starting turn's text: what failed, what it reported, which files to re-check. Derived from the feedback only. */
function adviceFor(plan: Plan): string {
  const a = plan.attempt;
  const after = a.turns[plan.boundary];
  const lines = [`Attempt ${a.label} failed the verifier${a.partialScore === null ? "" : ` (${Math.round(a.partialScore * 100)}% of tests passed)`}; resuming after turn ${after?.index ?? "?"}.`];
  for (const s of plan.suspects) {
    const turn = a.turns[s.position];
    const tests = s.failures.slice(0, 4).map(describe).join("; ");
    lines.push(`- Failing: ${tests}. Re-check ${s.files.slice(0, 5).join(", ")}${turn ? ` (first changed at turn ${turn.index})` : ""}: ${s.why}.`);
  }
  // Resuming before a branch's own start drops the guidance it was given from the context: carry it over.
  if (a.guidance && a.resumedAfter !== null && (after?.index ?? -1) < a.resumedAfter) lines.push(`Earlier guidance that still applies: ${a.guidance}`);
  lines.push("Make those changes so the failing tests pass, check them, and keep the rest of the approach.");
  return lines.join("\n");
}

function startingCall(plan: Plan): { tool: string; arguments: Record<string, unknown> } {
  const file = plan.suspects[0]?.files.find((f) => !f.includes("*"));
  const existed = file !== undefined && plan.attempt.turns.slice(0, plan.boundary + 1).some((t) => turnFiles(t).mentioned.includes(file));
  if (file && existed) return { tool: "view", arguments: { path: `/workspace/${file}` } };
  return { tool: "bash", arguments: { command: `cd /workspace && ls -R ${file?.includes("/") ? file.split("/").slice(0, -1).join("/") : "."}` } };
}

/** Without feedback: the attempts' changes, spread from late to early, one boundary each. */
function rewardOnlyPlans(input: ReviewInput, maxBranches: number): { attempt: FailedAttempt; boundary: number; change: AttemptTurn }[] {
  const perAttempt = [...input.attempts].reverse().map((a) => {
    const files = a.turns.map((t) => turnFiles(t));
    const own = changesOf(a, files).filter((c) => a.resumedAfter === null || c.turn.index > a.resumedAfter);
    const order: Change[] = [];
    // late, early, middle, …: cover the trajectory when there is nothing to localize with
    const pool = [...own];
    while (pool.length > 0) order.push(...pool.splice(order.length % 2 === 0 ? pool.length - 1 : 0, 1));
    return order.map((c) => ({ attempt: a, boundary: c.position - 1, change: c.turn })).filter((p) => p.boundary >= 0 && a.turns[p.boundary]!.resumable);
  });
  const picked: { attempt: FailedAttempt; boundary: number; change: AttemptTurn }[] = [];
  for (let round = 0; picked.length < maxBranches && perAttempt.some((p) => p.length > round); round++) {
    for (const p of perAttempt) {
      const c = p[round];
      if (c && picked.length < maxBranches && !picked.some((x) => x.attempt.turns[x.boundary]!.turnId === c.attempt.turns[c.boundary]!.turnId)) picked.push(c);
    }
  }
  return picked;
}

export function createDemoReviewer(): Reviewer {
  return {
    name: "demo-reviewer",
    review(input, prompt, options) {
      const branches: { attempt: string; turn: number; rationale: string; starting_turn: object }[] = [];
      let analysis: string;
      if (input.mode === "reward-only") {
        for (const p of rewardOnlyPlans(input, options.maxBranches)) {
          const file = turnFiles(p.change).changed[0];
          const advice = `Attempt ${p.attempt.label} failed (reward 0, no further feedback). Redo turn ${p.change.index} (${p.change.call.slice(0, 120)}) carefully and check the result before going on.`;
          branches.push({
            attempt: p.attempt.label,
            turn: p.attempt.turns[p.boundary]!.index,
            rationale: advice,
            starting_turn:
              options.guidance === "tool-call"
                ? { kind: "tool_call", tool: "bash", arguments: { command: `cd /workspace && ls -R ${file && !file.includes("*") && file.includes("/") ? file.split("/")[0] : "."}` }, message: advice }
                : { kind: "text", text: advice },
          });
        }
        analysis = `no feedback: ${branches.length} change(s) to redo, spread over the attempts`;
      } else {
        const plans = input.attempts.map((a) => analyse(a, input.attempts)).filter((p) => p.boundary >= 0);
        // Untried first, then what the analysis could localize, the closest to passing, and the cheapest to redo.
        plans.sort(
          (x, y) =>
            Number(x.tried) - Number(y.tried) ||
            Number(y.localized) - Number(x.localized) ||
            (y.attempt.partialScore ?? 0) - (x.attempt.partialScore ?? 0) ||
            y.attempt.turns.length - y.boundary - (x.attempt.turns.length - x.boundary) ||
            0,
        );
        // Each branch samples the continuation afresh: several from the best boundary are a group, not duplicates.
        const untried = plans.filter((p) => !p.tried);
        const pool = untried.length > 0 ? untried : plans;
        for (let i = 0; i < options.maxBranches && pool.length > 0; i++) {
          const plan = pool[i % pool.length]!;
          const advice = adviceFor(plan);
          const call = startingCall(plan);
          branches.push({
            attempt: plan.attempt.label,
            turn: plan.attempt.turns[plan.boundary]!.index,
            rationale: advice,
            starting_turn: options.guidance === "tool-call" ? { kind: "tool_call", tool: call.tool, arguments: call.arguments, message: advice } : { kind: "text", text: advice },
          });
        }
        analysis = plans.length
          ? plans
              .slice(0, 3)
              .map((p) => `${p.attempt.label}: ${p.suspects.map((s) => `${s.failures.map((f) => f.test ?? "tests").slice(0, 3).join(", ")} → ${s.files.slice(0, 3).join(", ")} (from turn ${p.attempt.turns[s.position]?.index})`).join("; ") || "no failure localized"}`)
              .join(" | ")
          : "nothing to resume from";
      }
      const text = JSON.stringify({ analysis, branches });
      return Promise.resolve({ text, promptTokens: promptTokens(prompt, "[]"), completionTokens: textTokens(text) });
    },
  };
}
