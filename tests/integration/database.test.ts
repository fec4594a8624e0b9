import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "@/server/config/env";
import { createDb, setDb, type Db } from "@/server/db/client";
import { migrate, migrateSqlite, migrationsDir, readMigrations } from "@/server/db/migrate";
import { seedDevelopmentData } from "@/server/dev/seed";
import { listExperiments } from "@/server/experiments/experiment-store";
import { getTask, listTasks } from "@/server/tasks/task-store";
import { getTaskTree, getTreeSummaries } from "@/server/tree/get-task-tree";
import type { RolloutId, TaskId } from "@/server/db/ids";
import { appendTurn, createRollout, type NewTurn } from "@/server/rollout/rollout-store";

/** A turn that collides with index 0 of the rollout: its whole write must roll back. */
function duplicateTurn(rolloutId: RolloutId, taskId: TaskId, ref: string): NewTurn {
  return {
    rolloutId, taskId, index: 0, parentId: null, author: "agent", tool: "bash", summary: "", exitCode: 0, isError: false, promptTokens: 1, completionTokens: 1,
    modelMs: 0, execMs: 0, backend: "local", checkpoint: { ref, parentRef: null, bytesAdded: 0, durationMs: 0 },
    parentCheckpointId: null, assistantMessage: "", toolCall: null, observation: "", messages: [],
  };
}

/** The same scenario on both databases: the schema, migrations and stores must behave alike. */
function scenario(name: string, setup: () => Promise<{ url: string; teardown: () => Promise<void> }>) {
  describe(name, () => {
    let url = "";
    let client: Db;
    let teardown = async () => {};

    beforeAll(async () => {
      ({ url, teardown } = await setup());
      expect((await migrate(url)).length).toBeGreaterThan(0);
      client = createDb(url);
      setDb(client);
    });
    afterAll(async () => {
      await client?.$disconnect();
      await teardown();
    });

    it("applies migrations once", async () => {
      expect(await migrate(url)).toEqual([]);
    });

    it("stores tasks, experiments, rollouts and turns, and the tree query reads them back", async () => {
      await seedDevelopmentData(client, { tasks: 2, rootsPerTask: 3, turnsPerRoot: 6, branchesPerTask: 2 });
      const tasks = await listTasks();
      expect(tasks.map((t) => t.name)).toEqual(["seed-task-1", "seed-task-2"]);
      const first = tasks[0]!;
      expect(first.rollouts).toBe(5);

      const task = await getTask(first.id);
      expect(task?.environment).toEqual({ base: { kind: "host" }, setup: [], workdir: "/workspace", copies: [], env: {} });
      expect(task?.verifier.format).toBe("exit-code");

      const tree = (await getTaskTree(first.id))!;
      expect(tree.turns.id.length).toBe(first.turns);
      expect(tree.rollouts.filter((r) => r.kind === "root")).toHaveLength(3);
      // Every branch's first turn hangs off the turn it branched from.
      for (const [ri, r] of tree.rollouts.entries()) {
        const own = tree.turns.id.map((_, i) => i).filter((i) => tree.turns.rollout[i] === ri);
        const firstTurn = own.reduce((a, b) => ((tree.turns.index[a] ?? 0) <= (tree.turns.index[b] ?? 0) ? a : b));
        const parent = tree.turns.parent[firstTurn]!;
        if (r.kind === "root") expect(parent).toBe(-1);
        else expect(tree.turns.id[parent]).toBe(r.branchedFromTurnId);
      }
      expect(await getTaskTree("missing" as TaskId)).toBeNull();
      // Repeated strings travel as dictionaries; summaries, which only hover cards show, apart.
      expect(tree.authors[0]).toBe("agent");
      expect(tree.turns.tool.every((t) => t === -1 || tree.tools[t] !== undefined)).toBe(true);
      const summaries = (await getTreeSummaries(first.id))!;
      expect(Object.keys(summaries).sort()).toEqual([...tree.turns.id].sort());
      expect(Object.values(summaries).every((s) => s.length > 0 && s.length <= 80)).toBe(true);
      expect(await getTreeSummaries("missing" as TaskId)).toBeNull();

      const [experiment] = await listExperiments();
      expect(experiment).toMatchObject({ seed: true, method: "sprout", tasks: 2, rollouts: 10, finishedRollouts: 10 });
    });

    it("keeps the checkpoint lineage: a parent cannot be deleted under its child", async () => {
      const parent = await client.checkpoint.create({ data: { backend: "local", ref: `layer-${name}-1`, bytesAdded: 5_000_000_000n } });
      const child = await client.checkpoint.create({ data: { backend: "local", ref: `layer-${name}-2`, parentId: parent.id } });
      expect((await client.checkpoint.findUniqueOrThrow({ where: { id: parent.id } })).bytesAdded).toBe(5_000_000_000n);
      await expect(client.checkpoint.delete({ where: { id: parent.id } })).rejects.toThrow();
      const turn = await client.turn.findFirstOrThrow();
      await client.turn.update({ where: { id: turn.id }, data: { checkpointId: child.id } });
      const withLineage = await client.turn.findUniqueOrThrow({ where: { id: turn.id }, include: { checkpoint: { include: { parent: true } } } });
      expect(withLineage.checkpoint?.parent?.ref).toBe(`layer-${name}-1`);
    });

    it("persists a rollout's turn with its checkpoint, content and counters in one write", async () => {
      const task = (await listTasks())[0]!;
      const rolloutId = await createRollout({ taskId: task.id, kind: "root" });
      const first = await appendTurn({
        rolloutId, taskId: task.id, index: 0, parentId: null, author: "agent", tool: "bash", summary: "bash(ls)", exitCode: 0, isError: false,
        promptTokens: 120, completionTokens: 30, modelMs: 5, execMs: 12, backend: "local",
        checkpoint: { ref: `append-${name}-1`, parentRef: null, bytesAdded: 6_000_000_000, durationMs: 4.6 }, parentCheckpointId: null,
        assistantMessage: "look first", toolCall: { id: "c1", name: "bash", arguments: '{"command":"ls"}' }, observation: "a\nb",
        messages: [{ role: "assistant", content: "look first" }], logprobs: [{ token: "ls", logprob: -0.1 }],
      });
      const second = await appendTurn({
        rolloutId, taskId: task.id, index: 1, parentId: first.turnId, author: "agent", tool: null, summary: "(no tool call)", exitCode: null, isError: true,
        promptTokens: 150, completionTokens: 10, modelMs: 5, execMs: 0, backend: "local",
        checkpoint: { ref: `append-${name}-2`, parentRef: `append-${name}-1`, bytesAdded: 0, durationMs: 3 },
        assistantMessage: "", toolCall: null, observation: "error: no tool call", messages: [],
      });
      const turns = await client.turn.findMany({ where: { rolloutId }, orderBy: { index: "asc" }, include: { content: true, checkpoint: true } });
      expect(turns.map((x) => [x.index, x.parentId, x.tool, x.exitCode, x.isError, x.checkpointMs])).toEqual([
        [0, null, "bash", 0, false, 5],
        [1, first.turnId, null, null, true, 3],
      ]);
      expect(turns[0]!.createdAt).toBeInstanceOf(Date);
      expect(turns[0]!.content).toMatchObject({ observation: "a\nb", toolCall: '{"id":"c1","name":"bash","arguments":"{\\"command\\":\\"ls\\"}"}', logprobs: '[{"token":"ls","logprob":-0.1}]' });
      expect(turns[1]!.content).toMatchObject({ toolCall: "null", logprobs: null, messages: "[]" });
      expect(turns[0]!.checkpoint).toMatchObject({ id: first.checkpointId, ref: `append-${name}-1`, parentId: null, bytesAdded: 6_000_000_000n, state: "live", durationMs: 4.6 });
      // Without the caller's parent row, the lineage parent is found by its ref.
      expect(turns[1]!.checkpoint).toMatchObject({ id: second.checkpointId, parentId: first.checkpointId });
      expect(await client.rollout.findUniqueOrThrow({ where: { id: rolloutId }, select: { steps: true, promptTokens: true, completionTokens: true } })).toEqual({
        steps: 1, promptTokens: 270, completionTokens: 40,
      });
      await expect(appendTurn(duplicateTurn(rolloutId, task.id, `append-${name}-dup`))).rejects.toThrow();
      expect(await client.turn.count({ where: { rolloutId } })).toBe(2);
      expect(await client.checkpoint.count({ where: { ref: `append-${name}-dup` } })).toBe(0);
    });

    it("stores reviews and annotations with their turns", async () => {
      const turn = await client.turn.findFirstOrThrow({ include: { rollout: true } });
      const review = await client.review.create({
        data: { taskId: turn.taskId, round: 1, decision: JSON.stringify([{ turnId: turn.id, startingTurn: "run the tests first" }]) },
      });
      await client.rollout.update({ where: { id: turn.rolloutId }, data: { reviewId: review.id } });
      await client.annotation.create({ data: { turnId: turn.id, author: "ann", label: "went wrong here", note: "should have read the error" } });
      const tree = (await getTaskTree(turn.taskId as TaskId))!;
      expect(tree.turns.annotations[tree.turns.id.indexOf(turn.id as never)]).toBe(1);
    });
  });
}

scenario("SQLite", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sprout-db-"));
  const teardown = () => Promise.resolve(fs.rmSync(dir, { recursive: true, force: true }));
  return Promise.resolve({ url: `file:${dir}/nested/sprout.db`, teardown });
});

scenario("PostgreSQL", async () => {
  // A real server: the machine's PostgreSQL, started by the script when stopped.
  const base = execFileSync("bash", ["scripts/ensure-postgres.sh"], { encoding: "utf8" }).trim();
  const dbName = `sprout_test_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: `${base}postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  return {
    url: `${base}${dbName}`,
    teardown: async () => {
      const a = new pg.Client({ connectionString: `${base}postgres` });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await a.end();
    },
  };
});

describe("migration safety", () => {
  it("refuses a migration edited after it was applied", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sprout-mig-"));
    const file = path.join(dir, "a.db");
    const migrations = readMigrations(migrationsDir("sqlite"));
    migrateSqlite(file, migrations);
    const edited = migrations.map((m, i) => (i === 0 ? { ...m, checksum: "0".repeat(64) } : m));
    expect(() => migrateSqlite(file, edited)).toThrow(ConfigError);
    expect(() => migrateSqlite(file, edited)).toThrow(/edited after it was applied/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("says which PostgreSQL it could not reach", async () => {
    await expect(migrate("postgresql://nobody:x@127.0.0.1:1/none")).rejects.toThrow(/DATABASE_URL: cannot use PostgreSQL at 127.0.0.1:1\/none/);
  });
});
