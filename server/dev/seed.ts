import { randomUUID } from "node:crypto";
import type { Db } from "../db/client";

/**
 * Development seed data: synthetic tasks, one synthetic experiment and rollout
 * trees, for working on the dashboard without running agents. Every row says it
 * is seed data (Task.source = "seed", Experiment.seed = true) and the UI labels it;
 * it is never a result.
 */

export interface SeedOptions {
  tasks?: number;
  rootsPerTask?: number;
  /** length of each root in turns */
  turnsPerRoot?: number;
  branchesPerTask?: number;
  /** deterministic pseudo-random source */
  seed?: number;
}

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMANDS = [
  ["bash", "ls -la /workspace"],
  ["view", "/workspace/src/parser.py"],
  ["bash", "python3 -m unittest discover -s tests"],
  ["edit", "/workspace/src/parser.py: fix off-by-one in tokenize()"],
  ["bash", "grep -rn 'def load' /workspace/src"],
  ["create", "/workspace/src/cache.py"],
  ["bash", "python3 -c 'import src.cli; src.cli.main([\"--help\"])'"],
] as const;

interface SeedTurn {
  id: string;
  rolloutId: string;
  taskId: string;
  index: number;
  parentId: string | null;
  tool: string;
  summary: string;
  promptTokens: number;
  completionTokens: number;
  modelMs: number;
  execMs: number;
}

export async function seedDevelopmentData(db: Db, options: SeedOptions = {}): Promise<{ tasks: number; turns: number }> {
  const { tasks = 3, rootsPerTask = 4, turnsPerRoot = 14, branchesPerTask = 3, seed = 7 } = options;
  const random = rng(seed);
  await db.experiment.deleteMany({ where: { seed: true } });
  const experiment = await db.experiment.create({
    data: {
      name: "seed: synthetic trees",
      method: "sprout",
      seed: true,
      status: "completed",
      config: JSON.stringify({ k: rootsPerTask, rounds: 1, branches: branchesPerTask }),
      policy: JSON.stringify({ kind: "seed" }),
      startedAt: new Date(),
      finishedAt: new Date(),
    },
  });
  let turnCount = 0;
  for (let t = 0; t < tasks; t++) {
    const name = `seed-task-${t + 1}`;
    await db.task.deleteMany({ where: { name } });
    const task = await db.task.create({
      data: {
        name,
        title: `Seed task ${t + 1}: synthetic rollout tree`,
        instruction: "Synthetic task made by `npm run seed` so the dashboard has something to draw. Not a real task.",
        environment: JSON.stringify({ base: { kind: "host" }, setup: [], workdir: "/workspace" }),
        verifier: JSON.stringify({ command: "true", timeoutMs: 1000, format: "exit-code" }),
        source: "seed",
      },
    });
    const makeRollout = async (kind: string, ordinal: number, parentTurn: string | null, startIndex: number, length: number, reward: number) => {
      const id = randomUUID();
      await db.rollout.create({
        data: {
          id,
          experimentId: experiment.id,
          taskId: task.id,
          kind,
          ordinal,
          round: kind === "root" ? 0 : 1,
          branchedFromTurnId: parentTurn,
          status: "completed",
          stopReason: "submitted",
          reward,
          partialScore: reward >= 1 ? 1 : Math.round(random() * 10) / 10,
          steps: length,
          promptTokens: length * 900,
          completionTokens: length * 120,
          startedAt: new Date(),
          finishedAt: new Date(),
        },
      });
      const ids: string[] = [];
      const turnRows: SeedTurn[] = [];
      let parent = parentTurn;
      for (let i = 0; i < length; i++) {
        const turnId = randomUUID();
        const [tool, summary] = COMMANDS[Math.floor(random() * COMMANDS.length)]!;
        turnRows.push({
          id: turnId,
          rolloutId: id,
          taskId: task.id,
          index: startIndex + i,
          parentId: parent,
          tool: i === length - 1 ? "submit" : tool,
          summary: i === length - 1 ? "submit" : summary,
          promptTokens: 900,
          completionTokens: 120,
          modelMs: 400 + Math.floor(random() * 800),
          execMs: 20 + Math.floor(random() * 300),
        });
        ids.push(turnId);
        parent = turnId;
      }
      for (let i = 0; i < turnRows.length; i += 2000) await db.turn.createMany({ data: turnRows.slice(i, i + 2000) });
      await db.turnContent.createMany({
        data: turnRows.map((row) => ({
          turnId: row.id,
          assistantMessage: "(seed data) synthetic assistant message",
          toolCall: JSON.stringify({ name: row.tool, arguments: { summary: row.summary } }),
          observation: "(seed data) synthetic observation",
        })),
      });
      turnCount += length;
      return ids;
    };
    const roots: string[][] = [];
    for (let r = 0; r < rootsPerTask; r++) roots.push(await makeRollout("root", r, null, 0, turnsPerRoot + Math.floor(random() * 6), random() < 0.2 ? 1 : 0));
    for (let b = 0; b < branchesPerTask; b++) {
      const root = roots[Math.floor(random() * roots.length)]!;
      const at = Math.floor(root.length * (0.3 + random() * 0.5));
      await makeRollout("branch", b, root[at]!, at + 1, 4 + Math.floor(random() * 8), random() < 0.6 ? 1 : 0);
    }
  }
  return { tasks, turns: turnCount };
}
