import { db } from "../db/client";
import type { RolloutId, TaskId, TurnId } from "../db/ids";

/** The short columns of one turn, enough to walk paths and label steps. */
export interface LineageTurn {
  id: TurnId;
  parentId: TurnId | null;
  rolloutId: RolloutId;
  index: number;
  author: string;
  tool: string | null;
  summary: string;
  isError: boolean;
  checkpointId: string | null;
}

/** All turns of a task by id: one indexed read, so walking a 10,000-turn path is memory work, not 10,000 queries. */
export async function loadTaskTurns(taskId: TaskId): Promise<Map<TurnId, LineageTurn>> {
  const rows = await db().turn.findMany({
    where: { taskId },
    select: { id: true, parentId: true, rolloutId: true, index: true, author: true, tool: true, summary: true, isError: true, checkpointId: true },
  });
  return new Map(
    rows.map((r) => [r.id as TurnId, { ...r, id: r.id as TurnId, parentId: r.parentId as TurnId | null, rolloutId: r.rolloutId as RolloutId }]),
  );
}

/** The trajectory from the task's start to `turnId` (inclusive), across the rollouts it passes through. */
export function pathTo(turns: ReadonlyMap<TurnId, LineageTurn>, turnId: TurnId): LineageTurn[] {
  const path: LineageTurn[] = [];
  const seen = new Set<TurnId>();
  for (let t = turns.get(turnId); t && !seen.has(t.id); t = t.parentId ? turns.get(t.parentId) : undefined) {
    seen.add(t.id);
    path.push(t);
  }
  return path.reverse();
}

/** A rollout's last turn (its deepest), or undefined when it has none yet. */
export function lastTurnOf(turns: ReadonlyMap<TurnId, LineageTurn>, rolloutId: RolloutId): LineageTurn | undefined {
  let last: LineageTurn | undefined;
  for (const t of turns.values()) if (t.rolloutId === rolloutId && (!last || t.index > last.index)) last = t;
  return last;
}
