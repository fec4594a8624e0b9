import type { z } from "zod";
import { db } from "../db/client";
import type { TaskId } from "../db/ids";
import { environmentSpec, taskMetadata, taskSource, verifierSpec, type EnvironmentSpec, type TaskSource, type VerifierSpec } from "./task-spec";

/** A task as the rest of the server sees it: JSON columns parsed. */
export interface Task {
  id: TaskId;
  name: string;
  title: string;
  instruction: string;
  environment: EnvironmentSpec;
  verifier: VerifierSpec;
  source: TaskSource;
  metadata: Record<string, unknown>;
  createdAt: Date;
}

/** A row of the task list: counts, not contents. */
export interface TaskSummary {
  id: TaskId;
  name: string;
  title: string;
  source: TaskSource;
  rollouts: number;
  resolved: number;
  turns: number;
}

type TaskRow = Awaited<ReturnType<ReturnType<typeof db>["task"]["findFirstOrThrow"]>>;

function toTask(row: TaskRow): Task {
  return {
    id: row.id as TaskId,
    name: row.name,
    title: row.title,
    instruction: row.instruction,
    environment: environmentSpec.parse(JSON.parse(row.environment)),
    verifier: verifierSpec.parse(JSON.parse(row.verifier)),
    source: taskSource.parse(row.source),
    metadata: taskMetadata.parse(JSON.parse(row.metadata)),
    createdAt: row.createdAt,
  };
}

export async function getTask(id: TaskId): Promise<Task | null> {
  const row = await db().task.findUnique({ where: { id } });
  return row ? toTask(row) : null;
}

export async function listTasks(): Promise<TaskSummary[]> {
  const client = db();
  const [tasks, rollouts, resolved, turns] = await Promise.all([
    client.task.findMany({ select: { id: true, name: true, title: true, source: true }, orderBy: { name: "asc" } }),
    client.rollout.groupBy({ by: ["taskId"], _count: { _all: true } }),
    client.rollout.groupBy({ by: ["taskId"], where: { reward: { gte: 1 } }, _count: { _all: true } }),
    client.turn.groupBy({ by: ["taskId"], _count: { _all: true } }),
  ]);
  const count = (rows: { taskId: string; _count: { _all: number } }[]) => new Map(rows.map((r) => [r.taskId, r._count._all]));
  const [r, s, t] = [count(rollouts), count(resolved), count(turns)];
  return tasks.map((task) => ({
    id: task.id as TaskId,
    name: task.name,
    title: task.title,
    source: taskSource.parse(task.source),
    rollouts: r.get(task.id) ?? 0,
    resolved: s.get(task.id) ?? 0,
    turns: t.get(task.id) ?? 0,
  }));
}

export interface TaskInput {
  name: string;
  title: string;
  instruction: string;
  /** defaults (setup, copies, env, timeouts) are filled in by the schema */
  environment: z.input<typeof environmentSpec>;
  verifier: z.input<typeof verifierSpec>;
  source: TaskSource;
  metadata?: Record<string, unknown>;
}

/** Create or update a task by its unique name. */
export async function upsertTask(input: TaskInput): Promise<Task> {
  const data = {
    title: input.title,
    instruction: input.instruction,
    environment: JSON.stringify(environmentSpec.parse(input.environment)),
    verifier: JSON.stringify(verifierSpec.parse(input.verifier)),
    source: input.source,
    metadata: JSON.stringify(input.metadata ?? {}),
  };
  const row = await db().task.upsert({ where: { name: input.name }, create: { name: input.name, ...data }, update: data });
  return toTask(row);
}
