import type { RolloutId, TaskId, TurnId } from "../db/ids";

/** What the tree draws of one rollout. */
export interface TreeRollout {
  id: RolloutId;
  kind: string;
  status: string;
  reward: number | null;
  round: number;
  ordinal: number;
  branchedFromTurnId: TurnId | null;
  experimentId: string | null;
}

/**
 * The turns of a task as parallel arrays of small numbers, with repeated strings in
 * dictionaries: 10,000 turns cost ~0.5 MB of JSON this way (mostly their ids) instead
 * of ~1.4 MB with summaries, and the client builds its tree from indices. Summaries,
 * which only a hover card and the status line show, come from getTreeSummaries.
 */
export interface TaskTree {
  taskId: TaskId;
  rollouts: TreeRollout[];
  /** tool names, indexed by `turns.tool` */
  tools: string[];
  /** turn authors ("agent" first), indexed by `turns.author` */
  authors: string[];
  turns: {
    id: TurnId[];
    /** index into `id` of the parent turn, or -1 for a first turn of a root (its parent is the task's start) */
    parent: number[];
    /** index into `rollouts` */
    rollout: number[];
    index: number[];
    /** index into `tools`, or -1 for a turn without a tool call */
    tool: number[];
    /** index into `authors` */
    author: number[];
    /** 1 when the turn's tool call failed */
    isError: (0 | 1)[];
    /** 1 while the turn's checkpoint is stored */
    hasCheckpoint: (0 | 1)[];
    annotations: number[];
  };
}
