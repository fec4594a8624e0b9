import type { ExperimentId, TaskId } from "../db/ids";
import type { PolicyConfig } from "../policy/create-policy";
import type { Policy } from "../policy/types";
import type { SandboxDriver } from "../sandbox/types";
import { createStrategy } from "./create-strategy";
import { experimentMetrics } from "./metrics";
import { createExperiment, runExperiment, type ExperimentMethod, type ExperimentProgress, type MethodConfig } from "./run-experiment";

/** One column of a comparison: a method and its settings. */
export interface MethodRun {
  label: string;
  method: ExperimentMethod;
  config: Partial<MethodConfig>;
}

/** What a comparison reports per method (the CLI's JSON line). */
export interface MethodResult {
  experiment: ExperimentId;
  resolve_rate: number;
  recovery_rate: number;
  steps: number;
  tokens: number;
  branches: number;
  resolved_tasks: number;
  tasks: number;
  saved_steps: number;
  saved_tokens: number;
}

/** Run each method over the same tasks with the same policy and seed, one after the other, and measure each. */
export async function compareMethods(
  runs: MethodRun[],
  deps: {
    taskIds: TaskId[];
    policy: Policy;
    policyConfig: PolicyConfig;
    driver: SandboxDriver;
    concurrency: number;
    seed: number;
    namePrefix?: string;
    onProgress?: (label: string, p: ExperimentProgress) => void;
  },
): Promise<Record<string, MethodResult>> {
  const results: Record<string, MethodResult> = {};
  for (const run of runs) {
    const id = await createExperiment({
      name: `${deps.namePrefix ?? "compare"}: ${run.label} · ${deps.taskIds.length} tasks · ${deps.policy.name}`,
      method: run.method,
      taskIds: deps.taskIds,
      config: { ...run.config, seed: deps.seed },
      policy: deps.policyConfig,
    });
    await runExperiment(id, {
      driver: deps.driver,
      policy: deps.policy,
      concurrency: deps.concurrency,
      strategy: run.method === "sprout" ? createStrategy(run.config.strategy ?? "review", { policy: deps.policy, policyConfig: deps.policyConfig, driver: deps.driver }) : undefined,
      onProgress: (p) => deps.onProgress?.(run.label, p),
    });
    const m = await experimentMetrics(id);
    results[run.label] = {
      experiment: id,
      resolve_rate: Number(m.resolveRate.toFixed(4)),
      recovery_rate: Number(m.recoveryRate.toFixed(4)),
      steps: m.steps,
      tokens: m.tokens,
      branches: m.branches,
      resolved_tasks: m.resolvedTasks,
      tasks: m.tasks,
      saved_steps: m.savedSteps,
      saved_tokens: m.savedTokens,
    };
  }
  return results;
}
