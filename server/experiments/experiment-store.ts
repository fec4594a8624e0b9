import { z } from "zod";
import { db } from "../db/client";
import type { ExperimentId } from "../db/ids";

export const experimentMethod = z.enum(["pass1", "passk", "sprout", "manual"]);
export const experimentStatus = z.enum(["pending", "running", "completed", "failed", "cancelled", "interrupted"]);

/** A row of the experiment list, with progress and totals computed from its rollouts. */
export interface ExperimentSummary {
  id: ExperimentId;
  name: string;
  method: z.infer<typeof experimentMethod>;
  status: z.infer<typeof experimentStatus>;
  seed: boolean;
  createdAt: string;
  finishedAt: string | null;
  /** the method's settings in a few words ("k = 4", "1 root · 2 × 2 · tool-call hint") */
  setting: string;
  tasks: number;
  rollouts: number;
  finishedRollouts: number;
  resolvedRollouts: number;
  resolvedTasks: number;
  steps: number;
  tokens: number;
}

/** A method's configuration in a few words, for lists and charts; tolerant of what older rows stored. */
export function describeSetting(method: string, configJson: string): string {
  let c: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(configJson);
    if (parsed && typeof parsed === "object") c = parsed as Record<string, unknown>;
  } catch {
    // an unreadable config describes as nothing
  }
  const n = (key: string) => (typeof c[key] === "number" ? c[key] : undefined);
  if (method === "passk") return n("k") !== undefined ? `k = ${n("k")}` : "";
  if (method !== "sprout") return "";
  const parts = [`${n("k") ?? 1} root${(n("k") ?? 1) === 1 ? "" : "s"}`];
  if (n("rounds") !== undefined && n("branches") !== undefined) parts.push(`${n("rounds")} × ${n("branches")}`);
  if (typeof c.strategy === "string" && c.strategy !== "review") parts.push(c.strategy);
  else {
    if (typeof c.guidance === "string") parts.push(c.guidance === "none" ? "no hint" : `${c.guidance} hint`);
    if (c.reviewInput === "reward-only") parts.push("reward only");
  }
  return parts.join(" · ");
}

const FINISHED = ["completed", "interrupted", "cancelled", "error"];

export async function listExperiments(): Promise<ExperimentSummary[]> {
  const client = db();
  const [experiments, rollouts] = await Promise.all([
    client.experiment.findMany({ orderBy: { createdAt: "desc" }, take: 200 }),
    client.rollout.findMany({
      where: { experimentId: { not: null } },
      select: { experimentId: true, taskId: true, status: true, reward: true, steps: true, promptTokens: true, completionTokens: true },
    }),
  ]);
  const byExperiment = new Map<string, typeof rollouts>();
  for (const r of rollouts) {
    if (r.experimentId === null) continue;
    const list = byExperiment.get(r.experimentId);
    if (list) list.push(r);
    else byExperiment.set(r.experimentId, [r]);
  }
  return experiments.map((e) => {
    const rs = byExperiment.get(e.id) ?? [];
    const resolved = rs.filter((r) => (r.reward ?? 0) >= 1);
    return {
      id: e.id as ExperimentId,
      name: e.name,
      method: experimentMethod.parse(e.method),
      status: experimentStatus.parse(e.status),
      seed: e.seed,
      createdAt: e.createdAt.toISOString(),
      finishedAt: e.finishedAt?.toISOString() ?? null,
      setting: describeSetting(e.method, e.config),
      tasks: new Set(rs.map((r) => r.taskId)).size,
      rollouts: rs.length,
      finishedRollouts: rs.filter((r) => FINISHED.includes(r.status)).length,
      resolvedRollouts: resolved.length,
      resolvedTasks: new Set(resolved.map((r) => r.taskId)).size,
      steps: rs.reduce((n, r) => n + r.steps, 0),
      tokens: rs.reduce((n, r) => n + r.promptTokens + r.completionTokens, 0),
    };
  });
}
