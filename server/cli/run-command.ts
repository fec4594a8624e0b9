import { z } from "zod";
import { env } from "../config/env";
import { db } from "../db/client";
import type { TaskId } from "../db/ids";
import type { PolicyConfig } from "../policy/create-policy";
import { builtinPlans, policyConfigFromEnv, policyFor, sandboxDriver } from "../runtime/services";
import { createExperiment, runExperiment } from "../sprout/run-experiment";
import { progressReporter } from "./progress";
import type { CliArgs } from "./main";
import { UsageError } from "./usage-error";

const int = (name: string, min: number) => z.coerce.number({ message: `--${name} must be a number` }).int().min(min, `--${name} must be at least ${min}`);

export function policyFromArgs(args: CliArgs): PolicyConfig {
  const v = args.values;
  const kind = v.policy ?? (v["base-url"] ? "openai" : undefined);
  if (kind === undefined) return policyConfigFromEnv();
  if (kind === "demo") return { kind: "demo", mistakeRate: v["mistake-rate"] ? Number(v["mistake-rate"]) : env().SPROUT_DEMO_MISTAKE_RATE };
  if (kind === "openai") {
    const baseUrl = v["base-url"] ?? env().OPENAI_BASE_URL;
    const model = v.model ?? env().SPROUT_MODEL;
    if (!baseUrl || !model) throw new UsageError("--policy openai needs --base-url and --model (or OPENAI_BASE_URL and SPROUT_MODEL)");
    return { kind: "openai", baseUrl, model, temperature: v.temperature ? Number(v.temperature) : env().SPROUT_TEMPERATURE };
  }
  throw new UsageError(`--policy must be demo or openai, not "${kind}"`);
}

/** Task ids from --task <name> (repeatable) or --suite builtin. */
export async function tasksFromArgs(args: CliArgs): Promise<{ id: TaskId; name: string }[]> {
  await builtinPlans();
  const names = args.values.task ?? [];
  if (names.length === 0 && args.values.suite === undefined) throw new UsageError("say which tasks: --task <name> or --suite builtin");
  if (args.values.suite !== undefined && args.values.suite !== "builtin") throw new UsageError(`unknown suite "${args.values.suite}" (the suite is: builtin)`);
  const where = args.values.suite === "builtin" ? { source: "builtin" } : { name: { in: names } };
  const rows = await db().task.findMany({ where, select: { id: true, name: true }, orderBy: { name: "asc" } });
  const missing = names.filter((n) => !rows.some((r) => r.name === n));
  if (missing.length > 0) throw new UsageError(`no task named ${missing.join(", ")} (see: npm run sprout -- tasks)`);
  return rows.map((r) => ({ id: r.id as TaskId, name: r.name }));
}

export async function runCommand(args: CliArgs): Promise<number> {
  const v = args.values;
  const k = int("k", 1).parse(v.k ?? "1");
  const concurrency = int("concurrency", 1).parse(v.concurrency ?? String(env().SPROUT_CONCURRENCY));
  const maxSteps = int("max-steps", 1).parse(v["max-steps"] ?? String(env().SPROUT_MAX_STEPS));
  const policyConfig = policyFromArgs(args);
  const tasks = await tasksFromArgs(args);
  const [driver, policy] = await Promise.all([sandboxDriver(), policyFor(policyConfig)]);
  const id = await createExperiment({
    name: v.name ?? `${k > 1 ? `pass@${k}` : "pass@1"} · ${tasks.length === 1 ? tasks[0]!.name : `${tasks.length} tasks`} · ${policy.name}`,
    method: k > 1 ? "passk" : "pass1",
    taskIds: tasks.map((t) => t.id),
    config: { k, maxSteps, seed: v.seed ? Number(v.seed) : 1 },
    policy: policyConfig,
  });
  const bar = progressReporter(`experiment ${id}`);
  const started = Date.now();
  const result = await runExperiment(id, {
    driver,
    policy,
    concurrency,
    onProgress: (p) => bar.update(p.finished, p.total, `· ${p.resolved} resolved`),
  });
  bar.end();
  await driver.close();
  const rollouts = await db().rollout.findMany({
    where: { experimentId: id },
    select: { id: true, task: { select: { name: true } }, ordinal: true, status: true, stopReason: true, reward: true, partialScore: true, steps: true, promptTokens: true, completionTokens: true, error: true },
    orderBy: [{ task: { name: "asc" } }, { ordinal: "asc" }],
  });
  const summary = {
    experiment: id,
    rollouts: result.total,
    resolved: result.resolved,
    resolved_tasks: new Set(rollouts.filter((r) => (r.reward ?? 0) >= 1).map((r) => r.task.name)).size,
    tasks: tasks.length,
    steps: rollouts.reduce((n, r) => n + r.steps, 0),
    tokens: rollouts.reduce((n, r) => n + r.promptTokens + r.completionTokens, 0),
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
  if (!v.json) {
    for (const r of rollouts) {
      const outcome = r.status !== "completed" ? `${r.status}${r.error ? `: ${r.error}` : ""}` : (r.reward ?? 0) >= 1 ? "resolved" : `failed (${Math.round((r.partialScore ?? 0) * 100)}% of tests)`;
      process.stdout.write(`${r.task.name} #${r.ordinal}  ${String(r.steps).padStart(3)} steps  ${outcome}  ${r.id}\n`);
    }
  }
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  return 0;
}
