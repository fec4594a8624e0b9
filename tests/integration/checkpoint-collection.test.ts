import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { collectCheckpoints } from "@/server/checkpoint/checkpoint-store";
import { createDb, setDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createDemoPolicy } from "@/server/policy/demo-policy";
import { createRollout } from "@/server/rollout/rollout-store";
import { runRollout } from "@/server/rollout/run-rollout";
import { createLocalDriver } from "@/server/sandbox/local/local-driver";
import type { SandboxDriver } from "@/server/sandbox/types";
import { syncBuiltinSuite } from "@/server/tasks/sync-builtin-suite";

let dir: string;
let client: Db;
let driver: SandboxDriver;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sprout-gc-"));
  const url = `file:${dir}/sprout.db`;
  await migrate(url);
  client = createDb(url);
  setDb(client);
  driver = createLocalDriver({ dataDir: path.join(dir, "sandbox") });
  await driver.init();
});

afterAll(async () => {
  await driver?.close();
  await client?.$disconnect();
  fs.rmSync(dir, { recursive: true, force: true });
});

it("collection removes what no kept turn needs and keeps everything a kept checkpoint depends on", async () => {
  const { tasks, plans } = await syncBuiltinSuite();
  const task = tasks.find((t) => t.name === "markdown-to-html")!;
  const policy = createDemoPolicy({ plans, mistakeRate: 0 });
  const root = await createRollout({ taskId: task.id, kind: "root", seed: 1 });
  await runRollout(root, { driver, policy, verify: false });
  const rootTurns = await client.turn.findMany({ where: { rolloutId: root }, orderBy: { index: "asc" }, include: { checkpoint: true } });
  const branch = await createRollout({ taskId: task.id, kind: "branch", branchedFromTurnId: rootTurns[5]!.id as never, seed: 2 });
  await runRollout(branch, { driver, policy, verify: false });
  const branchTurns = await client.turn.findMany({ where: { rolloutId: branch }, include: { checkpoint: true } });

  // Forget the root's late turns: the branch still needs turns 0..5 (its prefix), not 6..end.
  const forgotten = rootTurns.slice(6);
  await client.turn.deleteMany({ where: { id: { in: forgotten.map((t) => t.id) } } });
  const result = await collectCheckpoints(driver);
  expect(result.removed).toBe(forgotten.length);

  const states = await client.checkpoint.findMany({ select: { ref: true, state: true } });
  const stateOf = new Map(states.map((s) => [s.ref, s.state]));
  for (const t of forgotten) expect(stateOf.get(t.checkpoint!.ref)).toBe("collected");
  for (const t of [...rootTurns.slice(0, 6), ...branchTurns]) expect(stateOf.get(t.checkpoint!.ref)).toBe("live");
  // What is kept still restores, including the branch's last state on top of the shared prefix.
  const last = branchTurns.sort((a, b) => b.index - a.index)[0]!;
  const sandbox = await driver.create({ fromCheckpoint: last.checkpoint!.ref });
  expect((await sandbox.exec(["ls", "/workspace"])).exitCode).toBe(0);
  await sandbox.destroy();
  await expect(driver.create({ fromCheckpoint: forgotten[0]!.checkpoint!.ref })).rejects.toThrow(/not found/);
  // A second pass finds nothing more to remove.
  expect((await collectCheckpoints(driver)).removed).toBe(0);
});
