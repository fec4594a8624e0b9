import { db } from "../db/client";
import type { ExperimentId } from "../db/ids";

/** Table 2's columns, for one experiment or one task of it. */
export interface Metrics {
  tasks: number;
  resolvedTasks: number;
  resolveRate: number;
  /** of the tasks whose first root failed, the share that ended resolved */
  recoveryRate: number;
  /** tool calls executed; a restored prefix is counted once, in the rollout that ran it */
  steps: number;
  /** prompt + completion tokens of every rollout and every review */
  tokens: number;
  reviewTokens: number;
  roots: number;
  branches: number;
  /** what resuming saved against re-running each branch's prefix from the start */
  savedSteps: number;
  savedTokens: number;
}

export interface ExperimentMetrics extends Metrics {
  perTask: (Metrics & { taskId: string; taskName: string })[];
}

interface Row {
  id: string;
  taskId: string;
  kind: string;
  round: number;
  ordinal: number;
  reward: number | null;
  steps: number;
  promptTokens: number;
  completionTokens: number;
  branchedFromTurnId: string | null;
}

function summarize(rollouts: Row[], reviewTokens: number, prefix: Map<string, { steps: number; tokens: number }>): Metrics {
  const byTask = new Map<string, Row[]>();
  for (const r of rollouts) byTask.set(r.taskId, [...(byTask.get(r.taskId) ?? []), r]);
  let resolvedTasks = 0;
  let firstFailed = 0;
  let recovered = 0;
  for (const rs of byTask.values()) {
    const resolved = rs.some((r) => (r.reward ?? 0) >= 1);
    if (resolved) resolvedTasks += 1;
    const first = rs.filter((r) => r.kind === "root").sort((a, b) => a.ordinal - b.ordinal)[0];
    if (first && (first.reward ?? 0) < 1) {
      firstFailed += 1;
      if (resolved) recovered += 1;
    }
  }
  const branches = rollouts.filter((r) => r.kind === "branch");
  const tasks = byTask.size;
  return {
    tasks,
    resolvedTasks,
    resolveRate: tasks === 0 ? 0 : resolvedTasks / tasks,
    recoveryRate: firstFailed === 0 ? 0 : recovered / firstFailed,
    steps: rollouts.reduce((n, r) => n + r.steps, 0),
    tokens: rollouts.reduce((n, r) => n + r.promptTokens + r.completionTokens, 0) + reviewTokens,
    reviewTokens,
    roots: rollouts.length - branches.length,
    branches: branches.length,
    savedSteps: branches.reduce((n, b) => n + (prefix.get(b.branchedFromTurnId ?? "")?.steps ?? 0), 0),
    savedTokens: branches.reduce((n, b) => n + (prefix.get(b.branchedFromTurnId ?? "")?.tokens ?? 0), 0),
  };
}

/** Resolve, recovery, steps, tokens, branches and savings of an experiment, overall and per task, from the database. */
export async function experimentMetrics(id: ExperimentId): Promise<ExperimentMetrics> {
  const client = db();
  const [rollouts, reviews] = await Promise.all([
    client.rollout.findMany({
      where: { experimentId: id },
      select: { id: true, taskId: true, kind: true, round: true, ordinal: true, reward: true, steps: true, promptTokens: true, completionTokens: true, branchedFromTurnId: true },
    }),
    client.review.findMany({ where: { experimentId: id }, select: { taskId: true, promptTokens: true, completionTokens: true } }),
  ]);
  // The prefix a branch restored: the path from the task's start to its boundary.
  const taskIds = [...new Set(rollouts.map((r) => r.taskId))];
  const turns = await client.turn.findMany({
    where: { taskId: { in: taskIds } },
    select: { id: true, parentId: true, tool: true, promptTokens: true, completionTokens: true },
  });
  const byId = new Map(turns.map((t) => [t.id, t]));
  const prefix = new Map<string, { steps: number; tokens: number }>();
  for (const b of rollouts) {
    if (!b.branchedFromTurnId || prefix.has(b.branchedFromTurnId)) continue;
    let steps = 0;
    let tokens = 0;
    for (let t = byId.get(b.branchedFromTurnId); t; t = t.parentId ? byId.get(t.parentId) : undefined) {
      if (t.tool !== null) steps += 1;
      tokens += t.promptTokens + t.completionTokens;
    }
    prefix.set(b.branchedFromTurnId, { steps, tokens });
  }
  const names = new Map((await client.task.findMany({ where: { id: { in: taskIds } }, select: { id: true, name: true } })).map((t) => [t.id, t.name]));
  const reviewTokensOf = (taskId?: string) => reviews.filter((r) => !taskId || r.taskId === taskId).reduce((n, r) => n + r.promptTokens + r.completionTokens, 0);
  return {
    ...summarize(rollouts, reviewTokensOf(), prefix),
    perTask: taskIds
      .map((taskId) => ({ taskId, taskName: names.get(taskId) ?? taskId, ...summarize(rollouts.filter((r) => r.taskId === taskId), reviewTokensOf(taskId), prefix) }))
      .sort((a, b) => a.taskName.localeCompare(b.taskName)),
  };
}
