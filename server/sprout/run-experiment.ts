import { z } from "zod";
import { db } from "../db/client";
import type { ExperimentId, RolloutId, TaskId } from "../db/ids";
import type { PolicyConfig } from "../policy/create-policy";
import type { Policy } from "../policy/types";
import { RolloutPool } from "../rollout/rollout-pool";
import { createRollout } from "../rollout/rollout-store";
import type { RolloutLimits, RolloutSummary } from "../rollout/run-rollout";
import { publish } from "../runtime/events";
import type { SandboxDriver } from "../sandbox/types";
import { strategyName, type BoundaryStrategy } from "./boundary-strategy";

export const experimentMethod = z.enum(["pass1", "passk", "sprout"]);
export type ExperimentMethod = z.infer<typeof experimentMethod>;

export const methodConfig = z.object({
  /** independent roots per task */
  k: z.number().int().min(1).max(64).default(1),
  seed: z.number().int().default(1),
  maxSteps: z.number().int().min(1).default(60),
  /** SPROUT: review rounds per task whose roots all failed, and branches per round */
  rounds: z.number().int().min(0).max(16).default(2),
  branches: z.number().int().min(1).max(32).default(2),
  strategy: strategyName.default("review"),
  /** Table 5's ablations: continuation guidance, and what the reviewer reads */
  guidance: z.enum(["tool-call", "text", "none"]).default("tool-call"),
  reviewInput: z.enum(["feedback", "reward-only"]).default("feedback"),
  stopOnResolve: z.boolean().default(true),
  /** stop branching a task once its executed steps or tokens reach this (compare methods at equal cost) */
  budgetStepsPerTask: z.number().int().positive().optional(),
  budgetTokensPerTask: z.number().int().positive().optional(),
});
export type MethodConfig = z.infer<typeof methodConfig>;

export interface NewExperiment {
  name: string;
  method: ExperimentMethod;
  taskIds: TaskId[];
  config: Partial<MethodConfig>;
  policy: PolicyConfig;
}

/** A stable seed per (experiment seed, task, root ordinal), so a rerun samples the same roots. */
export function rootSeed(base: number, taskName: string, ordinal: number): number {
  let h = (base ^ 0x811c9dc5) >>> 0;
  for (const ch of taskName) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return (h ^ Math.imul(ordinal + 1, 0x9e3779b1)) >>> 0;
}

/** Create the experiment and its pending root rollouts (k per task). */
export async function createExperiment(input: NewExperiment): Promise<ExperimentId> {
  const config = methodConfig.parse({ ...input.config, k: input.method === "pass1" ? 1 : input.config.k });
  const client = db();
  const tasks = await client.task.findMany({ where: { id: { in: input.taskIds } }, select: { id: true, name: true } });
  if (tasks.length !== input.taskIds.length) throw new Error("some of the tasks do not exist");
  const experiment = await client.experiment.create({
    data: { name: input.name, method: input.method, config: JSON.stringify(config), policy: JSON.stringify(input.policy) },
  });
  for (const task of tasks) {
    for (let ordinal = 0; ordinal < config.k; ordinal++) {
      await createRollout({ taskId: task.id as TaskId, kind: "root", experimentId: experiment.id as ExperimentId, ordinal, seed: rootSeed(config.seed, task.name, ordinal) });
    }
  }
  return experiment.id as ExperimentId;
}

export interface ExperimentProgress {
  total: number;
  finished: number;
  resolved: number;
  last?: RolloutSummary;
}

export interface RunDeps {
  driver: SandboxDriver;
  policy: Policy;
  concurrency: number;
  /** how SPROUT picks boundaries; required for the sprout method */
  strategy?: BoundaryStrategy;
  limits?: Partial<RolloutLimits>;
  signal?: AbortSignal;
  onProgress?: (p: ExperimentProgress) => void;
}

const UNFINISHED = ["pending", "interrupted", "running"];

/**
 * Run an experiment to the end: every root that has not finished, then, for the
 * sprout method, review rounds on each task whose roots all failed. Finished
 * rollouts are never repeated and rounds already reviewed are not reviewed again,
 * so an experiment interrupted by a restart continues where it stopped.
 */
export async function runExperiment(id: ExperimentId, deps: RunDeps): Promise<ExperimentProgress> {
  const client = db();
  const experiment = await client.experiment.findUniqueOrThrow({ where: { id } });
  const method = experimentMethod.parse(experiment.method);
  const config = methodConfig.parse(JSON.parse(experiment.config));
  if (method === "sprout" && !deps.strategy) throw new Error("the sprout method needs a boundary strategy");
  const rollouts = await client.rollout.findMany({ where: { experimentId: id }, select: { id: true, status: true, reward: true } });
  const progress: ExperimentProgress = {
    total: rollouts.length,
    finished: rollouts.filter((r) => !UNFINISHED.includes(r.status)).length,
    resolved: rollouts.filter((r) => (r.reward ?? 0) >= 1).length,
  };
  await client.experiment.update({ where: { id }, data: { status: "running", startedAt: experiment.startedAt ?? new Date(), finishedAt: null, error: null } });
  publish({ type: "experiment", experimentId: id, status: "running" });
  const pool = new RolloutPool(deps.concurrency, { driver: deps.driver, policy: deps.policy, limits: { maxSteps: config.maxSteps, ...deps.limits } });
  const onAbort = () => pool.cancelAll();
  deps.signal?.addEventListener("abort", onAbort, { once: true });
  const run = async (rolloutId: RolloutId) => {
    const summary = await pool.run(rolloutId);
    progress.finished += 1;
    if ((summary.reward ?? 0) >= 1) progress.resolved += 1;
    progress.last = summary;
    deps.onProgress?.(progress);
    return summary;
  };
  deps.onProgress?.(progress);
  try {
    const tasks = await client.rollout.groupBy({ by: ["taskId"], where: { experimentId: id } });
    await Promise.all(
      tasks.map(async ({ taskId }) => {
        const pending = await client.rollout.findMany({ where: { experimentId: id, taskId, status: { in: UNFINISHED } }, select: { id: true }, orderBy: [{ round: "asc" }, { ordinal: "asc" }] });
        await Promise.all(pending.map((r) => run(r.id as RolloutId)));
        if (method === "sprout") await branchTask(id, taskId as TaskId, config, deps.strategy!, run, progress, deps.signal);
      }),
    );
    const status = deps.signal?.aborted ? "cancelled" : "completed";
    await client.experiment.update({ where: { id }, data: { status, finishedAt: new Date() } });
    publish({ type: "experiment", experimentId: id, status });
  } catch (error) {
    await client.experiment.update({ where: { id }, data: { status: "failed", error: error instanceof Error ? error.message : String(error), finishedAt: new Date() } });
    publish({ type: "experiment", experimentId: id, status: "failed" });
    throw error;
  } finally {
    deps.signal?.removeEventListener("abort", onAbort);
  }
  return progress;
}

/** SPROUT on one task: while no rollout resolved it, review the failed attempts and run the branches chosen. */
async function branchTask(
  experimentId: ExperimentId,
  taskId: TaskId,
  config: MethodConfig,
  strategy: BoundaryStrategy,
  run: (id: RolloutId) => Promise<RolloutSummary>,
  progress: ExperimentProgress,
  signal?: AbortSignal,
): Promise<void> {
  const client = db();
  const task = await client.task.findUniqueOrThrow({ where: { id: taskId }, select: { name: true } });
  for (let round = 1; round <= config.rounds; round++) {
    if (signal?.aborted) return;
    const all = await client.rollout.findMany({
      where: { experimentId, taskId },
      select: { id: true, reward: true, status: true, round: true, steps: true, promptTokens: true, completionTokens: true },
    });
    if (config.stopOnResolve && all.some((r) => (r.reward ?? 0) >= 1)) return;
    const steps = all.reduce((n, r) => n + r.steps, 0);
    const tokens = all.reduce((n, r) => n + r.promptTokens + r.completionTokens, 0);
    if ((config.budgetStepsPerTask && steps >= config.budgetStepsPerTask) || (config.budgetTokensPerTask && tokens >= config.budgetTokensPerTask)) return;
    // A round already reviewed (before a restart) is not reviewed again: its branches just finish.
    const existing = all.filter((r) => r.round === round);
    if (existing.length === 0) {
      const failed = all.filter((r) => r.status === "completed" && (r.reward ?? 0) < 1).map((r) => r.id as RolloutId);
      if (failed.length === 0) return;
      const selection = await strategy.select({
        experimentId,
        taskId,
        failed,
        round,
        maxBranches: config.branches,
        guidance: config.guidance,
        reviewInput: config.reviewInput,
        seed: rootSeed(config.seed, task.name, 1000 * round),
        signal,
      });
      if (selection.branches.length === 0) return;
      const created: RolloutId[] = [];
      for (const [ordinal, b] of selection.branches.entries()) {
        created.push(
          await createRollout({
            taskId,
            kind: "branch",
            experimentId,
            branchedFromTurnId: b.boundaryTurnId,
            reviewId: selection.reviewId,
            round,
            ordinal,
            seed: rootSeed(config.seed, task.name, 1000 * round + ordinal + 1),
            hint: config.guidance === "none" ? null : b.hint,
          }),
        );
      }
      progress.total += created.length;
      await Promise.all(created.map(run));
    } else {
      await Promise.all(existing.filter((r) => UNFINISHED.includes(r.status)).map((r) => run(r.id as RolloutId)));
    }
  }
}
