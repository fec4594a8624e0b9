import { db } from "../db/client";
import type { ExperimentId, RolloutId } from "../db/ids";
import type { PolicyConfig } from "../policy/create-policy";
import { markInterruptedRollouts } from "../rollout/rollout-store";
import { RolloutPool } from "../rollout/rollout-pool";
import { createStrategy } from "../sprout/create-strategy";
import { methodConfig, runExperiment } from "../sprout/run-experiment";
import { env } from "../config/env";
import { log } from "./log";
import { policyConfigFromEnv, policyFor, sandboxDriver } from "./services";
import { singleton } from "./singleton";

/**
 * Work the server runs after answering the request that asked for it:
 * experiments, and branches started from the dashboard. Each job can be
 * cancelled; rollouts and experiments persist their progress as they go, so
 * after a restart `recoverAfterRestart` continues them.
 */
const jobs = singleton("background-jobs", () => new Map<string, AbortController>());
const branchPools = singleton("branch-pools", () => ({ pool: null as RolloutPool | null }));

export function startExperiment(id: ExperimentId): void {
  if (jobs.has(id)) return;
  const controller = new AbortController();
  jobs.set(id, controller);
  void (async () => {
    try {
      const experiment = await db().experiment.findUniqueOrThrow({ where: { id } });
      const config = methodConfig.parse(JSON.parse(experiment.config));
      const policyConfig = JSON.parse(experiment.policy) as PolicyConfig;
      const [driver, policy] = await Promise.all([sandboxDriver(), policyFor(policyConfig)]);
      await runExperiment(id, {
        driver,
        policy,
        concurrency: env().SPROUT_CONCURRENCY,
        strategy: experiment.method === "sprout" ? createStrategy(config.strategy, { policy, policyConfig, driver }) : undefined,
        signal: controller.signal,
      });
    } catch (error) {
      log.error(`experiment ${id} failed`, { error: error instanceof Error ? error.message : String(error) });
    } finally {
      jobs.delete(id);
    }
  })();
}

export function cancelExperiment(id: ExperimentId): boolean {
  const c = jobs.get(id);
  c?.abort(new Error("cancelled"));
  return c !== undefined;
}

/** Run rollouts created outside an experiment (branches from the dashboard), through one shared pool. */
export function startRollouts(ids: RolloutId[], policyConfig: PolicyConfig = policyConfigFromEnv()): void {
  void (async () => {
    try {
      const [driver, policy] = await Promise.all([sandboxDriver(), policyFor(policyConfig)]);
      branchPools.pool ??= new RolloutPool(env().SPROUT_CONCURRENCY, { driver, policy });
      await Promise.all(ids.map((id) => branchPools.pool!.run(id, { policy })));
    } catch (error) {
      log.error("branches failed", { error: error instanceof Error ? error.message : String(error) });
    }
  })();
}

/**
 * After a restart: rollouts that were running are interrupted (their turns stay),
 * and experiments that were running continue where they stopped.
 */
export async function recoverAfterRestart(): Promise<{ interrupted: number; resumed: number }> {
  const interrupted = await markInterruptedRollouts();
  const running = await db().experiment.findMany({ where: { status: "running" }, select: { id: true } });
  for (const e of running) startExperiment(e.id as ExperimentId);
  return { interrupted, resumed: running.length };
}
