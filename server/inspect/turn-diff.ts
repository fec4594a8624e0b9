import { db } from "../db/client";
import type { TaskId, TurnId } from "../db/ids";
import type { SandboxDriver } from "../sandbox/types";
import { diffCheckpoints, diffSide, type FilesDiff } from "./checkpoint-diff";
import { inspectDriver } from "./inspect-driver";
import { loadTaskTurns, pathTo } from "./turn-lineage";

/** What a turn's files are compared with: the state before this turn, or the task's start. */
export type DiffAgainst = "parent" | "start";

export type TurnDiff = FilesDiff & { turnId: TurnId; against: DiffAgainst; baseLabel: string };

const checkpointSelect = { id: true, backend: true, ref: true, state: true } as const;

/**
 * The files a turn changed: against its parent turn's checkpoint (or, for a first
 * turn, the rollout's start), or against the task's start — the start checkpoint
 * of the root rollout its path begins in. Null when the turn does not exist.
 */
export async function getTurnDiff(turnId: TurnId, against: DiffAgainst, driver?: SandboxDriver): Promise<TurnDiff | null> {
  const client = db();
  const turn = await client.turn.findUnique({
    where: { id: turnId },
    select: {
      taskId: true,
      checkpoint: { select: checkpointSelect },
      parent: { select: { index: true, checkpoint: { select: checkpointSelect } } },
      rollout: { select: { startCheckpoint: { select: checkpointSelect } } },
    },
  });
  if (!turn) return null;
  const head = { turnId, against };
  if (!turn.checkpoint) {
    return { ...head, baseLabel: "", status: "no-checkpoint", message: "This turn has no checkpoint, so there are no files to show.", files: [], omitted: 0 };
  }
  let base = null;
  let baseLabel: string;
  if (against === "parent") {
    if (turn.parent && !turn.parent.checkpoint) {
      return { ...head, baseLabel: `turn ${turn.parent.index}`, status: "no-checkpoint", message: `The previous turn (${turn.parent.index}) has no checkpoint to compare with; try "against start".`, files: [], omitted: 0 };
    }
    base = turn.parent?.checkpoint ?? turn.rollout.startCheckpoint;
    baseLabel = turn.parent?.checkpoint ? `turn ${turn.parent.index}` : "the rollout's start";
  } else {
    const path = pathTo(await loadTaskTurns(turn.taskId as TaskId), turnId);
    const first = path[0];
    const root = first ? await client.turn.findUnique({ where: { id: first.id }, select: { rollout: { select: { startCheckpoint: { select: checkpointSelect } } } } }) : null;
    base = root?.rollout.startCheckpoint ?? null;
    baseLabel = base ? "the task's start" : "the base filesystem";
  }
  const files = await diffCheckpoints(driver ?? inspectDriver, diffSide(turn.checkpoint), diffSide(base));
  return { ...head, baseLabel, ...files };
}
