import { db } from "../db/client";
import type { ExperimentId } from "../db/ids";
import { methodConfig, type MethodConfig } from "./run-experiment";
import { experimentMetrics, type ExperimentMetrics } from "./metrics";

export interface ExperimentDetail {
  id: ExperimentId;
  name: string;
  method: string;
  status: string;
  seed: boolean;
  error: string | null;
  config: MethodConfig;
  policy: Record<string, unknown>;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  rollouts: { total: number; finished: number; running: number };
  metrics: ExperimentMetrics;
  /** per task: each rollout's kind, round and outcome, for the bar of roots and branches */
  outcomes: { taskId: string; rollouts: { id: string; kind: string; round: number; status: string; reward: number | null }[] }[];
}

export async function getExperiment(id: ExperimentId): Promise<ExperimentDetail | null> {
  const client = db();
  const e = await client.experiment.findUnique({ where: { id } });
  if (!e) return null;
  const rollouts = await client.rollout.findMany({
    where: { experimentId: id },
    select: { id: true, taskId: true, kind: true, round: true, status: true, reward: true },
    orderBy: [{ round: "asc" }, { ordinal: "asc" }],
  });
  const byTask = new Map<string, typeof rollouts>();
  for (const r of rollouts) byTask.set(r.taskId, [...(byTask.get(r.taskId) ?? []), r]);
  const parsed = methodConfig.safeParse(JSON.parse(e.config));
  return {
    id,
    name: e.name,
    method: e.method,
    status: e.status,
    seed: e.seed,
    error: e.error,
    config: parsed.success ? parsed.data : methodConfig.parse({}),
    policy: JSON.parse(e.policy) as Record<string, unknown>,
    createdAt: e.createdAt.toISOString(),
    startedAt: e.startedAt?.toISOString() ?? null,
    finishedAt: e.finishedAt?.toISOString() ?? null,
    rollouts: {
      total: rollouts.length,
      finished: rollouts.filter((r) => !["pending", "running"].includes(r.status)).length,
      running: rollouts.filter((r) => r.status === "running").length,
    },
    metrics: await experimentMetrics(id),
    outcomes: [...byTask].map(([taskId, rs]) => ({ taskId, rollouts: rs.map(({ taskId: _t, ...r }) => r) })),
  };
}
