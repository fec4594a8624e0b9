import { db } from "../db/client";
import type { RolloutId, TaskId, TurnId } from "../db/ids";
import { ConflictError } from "../http/route";
import type { SandboxDriver } from "../sandbox/types";
import { diffCheckpoints, diffSide, type FilesDiff } from "./checkpoint-diff";
import { inspectDriver } from "./inspect-driver";
import { lastTurnOf, loadTaskTurns, pathTo, type LineageTurn } from "./turn-lineage";

/** One step of a compared trajectory. */
export interface CompareStep {
  id: TurnId;
  index: number;
  rolloutId: RolloutId;
  author: string;
  tool: string | null;
  summary: string;
  isError: boolean;
}

export interface ComparedRollout {
  id: RolloutId;
  kind: string;
  status: string;
  reward: number | null;
  partialScore: number | null;
  ordinal: number;
  round: number;
  startingHint: string | null;
  verifierFeedback: string | null;
  promptTokens: number;
  completionTokens: number;
  /** the turns after the fork, in order */
  steps: CompareStep[];
}

/** Two rollouts of one task aligned at their fork. */
export interface RolloutComparison {
  taskId: TaskId;
  /** turns both trajectories share, from the task's start to the fork */
  shared: CompareStep[];
  /** the turn they fork at (the last shared one), or null when they share nothing (two roots) */
  forkTurnId: TurnId | null;
  a: ComparedRollout;
  b: ComparedRollout;
  /** the first step after the fork where the two actions differ (0 = the first step after the fork), or null if they never do */
  firstDifference: number | null;
  /** the tool calls of the first differing steps, in full */
  firstDifferentCalls: { a: unknown; b: unknown } | null;
  /** files from a's final checkpoint to b's */
  finalFiles: FilesDiff & { aTurnId: TurnId | null; bTurnId: TurnId | null };
}

const step = (t: LineageTurn): CompareStep => ({ id: t.id, index: t.index, rolloutId: t.rolloutId, author: t.author, tool: t.tool, summary: t.summary, isError: t.isError });

const parseCall = (s: string | undefined): unknown => {
  try {
    return JSON.parse(s ?? "null");
  } catch {
    return s ?? null;
  }
};

/**
 * Aligns two rollouts at their fork (the common prefix of their turn paths), finds
 * the first step where their actions differ, and diffs their final checkpoints'
 * files. Null when either rollout does not exist.
 */
export async function compareRollouts(aId: RolloutId, bId: RolloutId, driver?: SandboxDriver): Promise<RolloutComparison | null> {
  const client = db();
  const [ra, rb] = await Promise.all([client.rollout.findUnique({ where: { id: aId } }), client.rollout.findUnique({ where: { id: bId } })]);
  if (!ra || !rb) return null;
  if (ra.taskId !== rb.taskId) throw new ConflictError("the two rollouts belong to different tasks; compare rollouts of one task");
  const turns = await loadTaskTurns(ra.taskId as TaskId);
  const pathOf = (r: { id: string; branchedFromTurnId: string | null }) => {
    const last = lastTurnOf(turns, r.id as RolloutId);
    const end = last?.id ?? (r.branchedFromTurnId as TurnId | null);
    return end ? pathTo(turns, end) : [];
  };
  const pa = pathOf(ra);
  const pb = pathOf(rb);
  let fork = 0;
  while (fork < pa.length && fork < pb.length && pa[fork]!.id === pb[fork]!.id) fork++;
  const restA = pa.slice(fork);
  const restB = pb.slice(fork);
  let firstDifference: number | null = null;
  for (let i = 0; i < Math.max(restA.length, restB.length); i++) {
    const x = restA[i];
    const y = restB[i];
    if (!x || !y || x.tool !== y.tool || x.summary !== y.summary) {
      firstDifference = i;
      break;
    }
  }
  let firstDifferentCalls: RolloutComparison["firstDifferentCalls"] = null;
  if (firstDifference !== null) {
    const ids = [restA[firstDifference]?.id, restB[firstDifference]?.id].filter((x): x is TurnId => !!x);
    const contents = await client.turnContent.findMany({ where: { turnId: { in: ids } }, select: { turnId: true, toolCall: true } });
    const call = (id: TurnId | undefined) => (id ? parseCall(contents.find((c) => c.turnId === id)?.toolCall) : null);
    firstDifferentCalls = { a: call(restA[firstDifference]?.id), b: call(restB[firstDifference]?.id) };
  }

  // The final filesystem of each: the last turn on its path that has a checkpoint.
  const finalOf = (path: LineageTurn[]) => [...path].reverse().find((t) => t.checkpointId !== null) ?? null;
  const fa = finalOf(pa);
  const fb = finalOf(pb);
  const checkpointOf = async (t: LineageTurn | null) =>
    t?.checkpointId ? client.checkpoint.findUnique({ where: { id: t.checkpointId }, select: { id: true, backend: true, ref: true, state: true } }) : null;
  const [ca, cb] = await Promise.all([checkpointOf(fa), checkpointOf(fb)]);
  let finalFiles: FilesDiff;
  if (!ca || !cb) finalFiles = { status: "no-checkpoint", message: "One of the rollouts has no checkpoint, so their final files cannot be compared.", files: [], omitted: 0 };
  else if (ca.id === cb.id) finalFiles = { status: "ok", files: [], omitted: 0 };
  else finalFiles = await diffCheckpoints(driver ?? inspectDriver, diffSide(cb), diffSide(ca));

  const summary = (r: NonNullable<typeof ra>, rest: LineageTurn[]): ComparedRollout => ({
    id: r.id as RolloutId,
    kind: r.kind,
    status: r.status,
    reward: r.reward,
    partialScore: r.partialScore,
    ordinal: r.ordinal,
    round: r.round,
    startingHint: r.startingHint,
    verifierFeedback: r.verifierFeedback,
    promptTokens: r.promptTokens,
    completionTokens: r.completionTokens,
    steps: rest.map(step),
  });
  return {
    taskId: ra.taskId as TaskId,
    shared: pa.slice(0, fork).map(step),
    forkTurnId: fork > 0 ? pa[fork - 1]!.id : null,
    a: summary(ra, restA),
    b: summary(rb, restB),
    firstDifference,
    firstDifferentCalls,
    finalFiles: { ...finalFiles, aTurnId: fa?.id ?? null, bTurnId: fb?.id ?? null },
  };
}
