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
import type { TaskId } from "@/server/db/ids";

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
