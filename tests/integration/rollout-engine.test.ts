import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, setDb, type Db } from "@/server/db/client";
import type { RolloutId, TaskId, TurnId } from "@/server/db/ids";
import { migrate } from "@/server/db/migrate";
import { createDemoPolicy } from "@/server/policy/demo-policy";
import { createOpenAiPolicy } from "@/server/policy/openai-policy";
import { createRollout, loadPath, markInterruptedRollouts } from "@/server/rollout/rollout-store";
import { runRollout } from "@/server/rollout/run-rollout";
import { createLocalDriver } from "@/server/sandbox/local/local-driver";
import type { SandboxDriver } from "@/server/sandbox/types";
import { createStrategy } from "@/server/sprout/create-strategy";
import { exportGroups } from "@/server/sprout/export-groups";
import { experimentMetrics } from "@/server/sprout/metrics";
import { createExperiment, runExperiment } from "@/server/sprout/run-experiment";
import type { SproutTaskFile } from "@/server/tasks/builtin/schema";
import { syncBuiltinSuite } from "@/server/tasks/sync-builtin-suite";

/** Real rollouts: the local overlayfs driver, a SQLite file, the built-in tasks, the demo and OpenAI-compatible policies. */
let dir: string;
let client: Db;
let driver: SandboxDriver;
let plans: Map<string, SproutTaskFile>;
let taskIds: Map<string, TaskId>;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sprout-engine-"));
  const url = `file:${dir}/sprout.db`;
  await migrate(url);
  client = createDb(url);
  setDb(client);
  const suite = await syncBuiltinSuite();
  plans = suite.plans;
  taskIds = new Map(suite.tasks.map((t) => [t.name, t.id]));
  driver = createLocalDriver({ dataDir: path.join(dir, "sandbox") });
  await driver.init();
});

afterAll(async () => {
  await driver?.close();
  await client?.$disconnect();
  fs.rmSync(dir, { recursive: true, force: true });
});

const TASK = "markdown-to-html";

describe("the rollout engine", () => {
  it("runs a demo rollout to a verified reward, with a checkpoint and persisted content for every turn", async () => {
    const id = await createRollout({ taskId: taskIds.get(TASK)!, kind: "root", seed: 3 });
    const summary = await runRollout(id, { driver, policy: createDemoPolicy({ plans, mistakeRate: 0 }) });
    expect(summary).toMatchObject({ status: "completed", stopReason: "submitted", reward: 1 });
    const rollout = await client.rollout.findUniqueOrThrow({ where: { id }, include: { turns: { include: { checkpoint: true, content: true }, orderBy: { index: "asc" } } } });
    expect(rollout.turns).toHaveLength(plans.get(TASK)!.reference.length);
    expect(rollout.steps).toBe(rollout.turns.length);
    expect(rollout.verifierFeedback).toMatch(/^all \d+ tests passed$/);
    expect(rollout.promptTokens).toBeGreaterThan(1000);
    expect(rollout.startCheckpointId).not.toBeNull();
    for (const [i, t] of rollout.turns.entries()) {
      expect(t.index).toBe(i);
      expect(t.checkpoint?.state).toBe("live");
      expect(t.content?.observation.length).toBeGreaterThan(0);
      if (i > 0) expect(t.parentId).toBe(rollout.turns[i - 1]!.id);
    }
    // The lineage runs from the start through every turn.
    expect(rollout.turns[0]!.checkpoint!.parentId).toBe(rollout.startCheckpointId);
    expect(rollout.turns[1]!.checkpoint!.parentId).toBe(rollout.turns[0]!.checkpointId);
  });

  it("a branch restores a middle turn's files and context, and never sees the root's later changes", async () => {
    const root = await createRollout({ taskId: taskIds.get(TASK)!, kind: "root", seed: 4 });
    await runRollout(root, { driver, policy: createDemoPolicy({ plans, mistakeRate: 0 }), verify: false });
    const turns = await client.turn.findMany({ where: { rolloutId: root }, orderBy: { index: "asc" }, include: { checkpoint: true } });
    const boundary = turns[3]!;
    const branch = await createRollout({ taskId: taskIds.get(TASK)!, kind: "branch", branchedFromTurnId: boundary.id as TurnId, seed: 5, hint: { kind: "text", text: "carry on carefully" } });
    const summary = await runRollout(branch, { driver, policy: createDemoPolicy({ plans, mistakeRate: 0 }) });
    expect(summary.reward).toBe(1);
    const own = await client.turn.findMany({ where: { rolloutId: branch }, orderBy: { index: "asc" } });
    // The branch continues the numbering after its boundary, hangs off it, and only ran the remaining steps.
    expect(own[0]).toMatchObject({ index: 4, parentId: boundary.id });
    expect(own).toHaveLength(turns.length - 4);
    const path = await loadPath(own.at(-1)!.id as TurnId);
    expect(path!.turns.map((t) => t.index)).toEqual(turns.map((t) => t.index));
    expect(path!.hints.get(4)).toEqual({ kind: "text", text: "carry on carefully" });
    // Restoring the boundary again shows its state, not the root's final state.
    const at3 = await driver.create({ fromCheckpoint: boundary.checkpoint!.ref });
    const final = await driver.create({ fromCheckpoint: turns.at(-1)!.checkpoint!.ref });
    try {
      const ls = (s: typeof at3) => s.exec(["/bin/bash", "-c", "cd /workspace && find . -type f | sort | xargs md5sum"]).then((r) => r.stdout);
      expect(await ls(at3)).not.toEqual(await ls(final));
    } finally {
      await at3.destroy();
      await final.destroy();
    }
  });

  it("records bad model answers as error observations and an unreachable endpoint as a failed rollout, never a crash", async () => {
    const script = [
      { content: "Thinking aloud, no tool." },
      { tool_calls: [{ id: "a", type: "function", function: { name: "bash", arguments: "{not json" } }] },
      { tool_calls: [{ id: "b", type: "function", function: { name: "launch_rockets", arguments: "{}" } }] },
      { tool_calls: [{ id: "c", type: "function", function: { name: "bash", arguments: '{"command":"sleep 30","timeout_sec":1}' } }] },
      { tool_calls: [{ id: "d", type: "function", function: { name: "submit", arguments: "{}" } }] },
    ];
    const server = http.createServer((_req, res) => {
      const message = script.shift() ?? { content: "" };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content: "", ...message } }], usage: { prompt_tokens: 10, completion_tokens: 2 } }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      const id = await createRollout({ taskId: taskIds.get(TASK)!, kind: "root" });
      const summary = await runRollout(id, { driver, policy: createOpenAiPolicy({ baseUrl, model: "m" }) });
      expect(summary).toMatchObject({ status: "completed", stopReason: "submitted", reward: 0 });
      const turns = await client.turn.findMany({ where: { rolloutId: id }, orderBy: { index: "asc" }, include: { content: true } });
      expect(turns.map((t) => [t.tool, t.isError])).toEqual([[null, true], ["bash", true], ["launch_rockets", true], ["bash", true], ["submit", false]]);
      expect(turns[0]!.content!.observation).toMatch(/no tool call/);
      expect(turns[1]!.content!.observation).toMatch(/not valid JSON/);
      expect(turns[2]!.content!.observation).toMatch(/there is no tool "launch_rockets"/);
      expect(turns[3]!.content!.observation).toMatch(/timed out after 1 s/);
    } finally {
      server.close();
    }
    const unreachable = await createRollout({ taskId: taskIds.get(TASK)!, kind: "root" });
    const failed = await runRollout(unreachable, { driver, policy: createOpenAiPolicy({ baseUrl: "http://127.0.0.1:9/v1", model: "m", maxRetries: 1, retryBaseMs: 1 }) });
    expect(failed).toMatchObject({ status: "error", stopReason: "policy-error" });
    const row = await client.rollout.findUniqueOrThrow({ where: { id: unreachable } });
    expect(row.error).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions/);
  });

  it("continues an interrupted rollout from its last persisted turn after a restart", async () => {
    const id = await createRollout({ taskId: taskIds.get(TASK)!, kind: "root", seed: 9 });
    await runRollout(id, { driver, policy: createDemoPolicy({ plans, mistakeRate: 0 }), limits: { maxSteps: 5 }, verify: false });
    // As if the process died mid-rollout.
    await client.rollout.update({ where: { id }, data: { status: "running" } });
    expect(await markInterruptedRollouts()).toBeGreaterThanOrEqual(1);
    expect((await client.rollout.findUniqueOrThrow({ where: { id } })).status).toBe("interrupted");
    const summary = await runRollout(id, { driver, policy: createDemoPolicy({ plans, mistakeRate: 0 }) });
    expect(summary.reward).toBe(1);
    const indices = (await client.turn.findMany({ where: { rolloutId: id }, orderBy: { index: "asc" } })).map((t) => t.index);
    expect(indices).toEqual([...indices.keys()]);
  });

  it("stops a cancelled rollout before its next turn, keeping what it did", async () => {
    const id = await createRollout({ taskId: taskIds.get(TASK)!, kind: "root" });
    const controller = new AbortController();
    const policy = createDemoPolicy({ plans, mistakeRate: 0 });
    let calls = 0;
    const summary = await runRollout(id, {
      driver,
      signal: controller.signal,
      policy: { name: "cancel-after-2", next: (r) => (++calls === 3 ? (controller.abort(), policy.next(r)) : policy.next(r)) },
    });
    expect(summary.status).toBe("cancelled");
    expect(await client.turn.count({ where: { rolloutId: id } })).toBe(3);
  });
});

describe("SPROUT", () => {
  it("reviews failed roots with the verifier's feedback, branches from the chosen turns, and exports training groups", async () => {
    const tasks = [taskIds.get(TASK)!, taskIds.get("units-converter-fix")!];
    const policyConfig = { kind: "demo" as const, mistakeRate: 1 };
    const policy = createDemoPolicy({ plans, mistakeRate: 1 });
    const id = await createExperiment({ name: "sprout test", method: "sprout", taskIds: tasks, config: { k: 1, rounds: 1, branches: 2, seed: 1 }, policy: policyConfig });
    await runExperiment(id, { driver, policy, concurrency: 2, strategy: createStrategy("review", { policy, policyConfig, driver }) });
    const reviews = await client.review.findMany({ where: { experimentId: id } });
    expect(reviews).toHaveLength(2);
    for (const r of reviews) {
      expect(r.status).toBe("completed");
      expect(r.inputSummary).toContain("# Attempt A (failed)");
      expect(r.inputSummary).toMatch(/tests failed/);
      expect(r.promptTokens).toBeGreaterThan(100);
    }
    const branches = await client.rollout.findMany({ where: { experimentId: id, kind: "branch" }, include: { turns: { orderBy: { index: "asc" }, take: 1 } } });
    expect(branches).toHaveLength(4);
    for (const b of branches) {
      expect(b.reviewId).not.toBeNull();
      expect(b.status).toBe("completed");
      // The starting turn (a reviewer's tool call) is the branch's first turn, hanging off the boundary.
      expect(b.turns[0]).toMatchObject({ author: "hint", parentId: b.branchedFromTurnId });
    }
    const metrics = await experimentMetrics(id);
    expect(metrics).toMatchObject({ tasks: 2, roots: 2, branches: 4 });
    expect(metrics.savedSteps).toBeGreaterThan(0);
    expect(metrics.steps).toBe((await client.rollout.findMany({ where: { experimentId: id } })).reduce((n, r) => n + r.steps, 0));

    const lines = [];
    for await (const line of exportGroups({ experimentId: id })) lines.push(line);
    expect(lines).toHaveLength(6);
    for (const line of lines) {
      expect(line.messages.length).toBe(line.generated_mask.length);
      expect(line.messages.some((m) => m.content.includes("analyst and reviewer"))).toBe(false);
      const group = lines.filter((l) => l.group_id === line.group_id);
      expect(group.reduce((s, l) => s + l.advantage, 0)).toBeCloseTo(0, 4);
    }
    // A branch's own turns are masked in; its restored prefix and starting turn are not.
    const branchLine = lines.find((l) => l.kind === "branch")!;
    expect(branchLine.generated_mask.filter((x) => x === 1).length).toBeGreaterThan(0);
    expect(branchLine.generated_mask.slice(0, 4)).toEqual([0, 0, 0, 0]);
  });

  it("resumes an interrupted experiment without repeating finished rollouts", async () => {
    const policyConfig = { kind: "demo" as const, mistakeRate: 0 };
    const policy = createDemoPolicy({ plans, mistakeRate: 0 });
    const id = await createExperiment({ name: "resume", method: "passk", taskIds: [taskIds.get(TASK)!], config: { k: 2 }, policy: policyConfig });
    const [first] = await client.rollout.findMany({ where: { experimentId: id }, orderBy: { ordinal: "asc" } });
    await runRollout(first!.id as RolloutId, { driver, policy });
    const before = await client.turn.count({ where: { rolloutId: first!.id } });
    await runExperiment(id, { driver, policy, concurrency: 2 });
    expect(await client.turn.count({ where: { rolloutId: first!.id } })).toBe(before);
    const rollouts = await client.rollout.findMany({ where: { experimentId: id } });
    expect(rollouts.map((r) => r.status)).toEqual(["completed", "completed"]);
    expect((await client.experiment.findUniqueOrThrow({ where: { id } })).status).toBe("completed");
  });
});
