import { z } from "zod";
import { db } from "../db/client";
import type { ExperimentId, TaskId } from "../db/ids";
import { NotFoundError } from "../http/route";
import { startExperiment } from "../runtime/background";
import { builtinPlans, policyConfigFromEnv } from "../runtime/services";
import { createExperiment, experimentMethod, methodConfig } from "./run-experiment";

export const experimentRequest = z.discriminatedUnion("preset", [
  /** The newcomer's button: SPROUT over the built-in suite with the demo policy. */
  z.object({ preset: z.literal("demo") }),
  z.object({
    preset: z.literal("custom"),
    name: z.string().trim().min(1).max(120).optional(),
    method: experimentMethod,
    tasks: z.union([z.literal("builtin"), z.array(z.string().min(1)).min(1)]),
    config: methodConfig.partial().default({}),
  }),
]);

/** Create an experiment and start it in the background; the dashboard follows it live. */
export async function startNewExperiment(input: unknown): Promise<{ id: ExperimentId; firstTaskId: string | null }> {
  const request = experimentRequest.parse(input);
  await builtinPlans();
  const client = db();
  let id: ExperimentId;
  if (request.preset === "demo") {
    const tasks = await client.task.findMany({ where: { source: "builtin" }, select: { id: true }, orderBy: { name: "asc" } });
    id = await createExperiment({
      name: "Demo: SPROUT on the built-in suite (demo policy)",
      method: "sprout",
      taskIds: tasks.map((t) => t.id as TaskId),
      // The bench's SPROUT setting (bench/sprout.ts); a higher mistake rate than the bench's so most roots fail and branch.
      config: { k: 1, rounds: 2, branches: 2, seed: Math.floor(Math.random() * 1000) },
      policy: { kind: "demo", mistakeRate: 0.3 },
    });
  } else {
    const where = request.tasks === "builtin" ? { source: "builtin" } : { name: { in: request.tasks } };
    const tasks = await client.task.findMany({ where, select: { id: true, name: true } });
    if (request.tasks !== "builtin") {
      const missing = request.tasks.filter((n) => !tasks.some((t) => t.name === n));
      if (missing.length > 0) throw new NotFoundError(`no task named ${missing.join(", ")}`);
    }
    id = await createExperiment({
      name: request.name ?? `${request.method} · ${tasks.length} tasks`,
      method: request.method,
      taskIds: tasks.map((t) => t.id as TaskId),
      config: request.config,
      policy: policyConfigFromEnv(),
    });
  }
  startExperiment(id);
  const first = await client.rollout.findFirst({ where: { experimentId: id }, orderBy: { task: { name: "asc" } }, select: { taskId: true } });
  return { id, firstTaskId: first?.taskId ?? null };
}
