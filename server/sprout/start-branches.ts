import { z } from "zod";
import { db } from "../db/client";
import type { ReviewId, RolloutId, TaskId, TurnId } from "../db/ids";
import { ConflictError, NotFoundError } from "../http/route";
import { createRollout } from "../rollout/rollout-store";
import { startRollouts } from "../runtime/background";
import { policyConfigFromEnv, policyFor, sandboxDriver } from "../runtime/services";
import { createStrategy } from "./create-strategy";

export const branchRequest = z.object({
  /** text guidance for the branch's first turn; empty or absent: resume without a hint */
  hint: z.string().trim().max(8000).optional(),
  count: z.number().int().min(1).max(8).default(1),
});

/** Start branches from a turn chosen by a person (the manual strategy): they restore its checkpoint and context. */
export async function startBranchesFromTurn(turnId: TurnId, input: unknown): Promise<{ rollouts: RolloutId[] }> {
  const { hint, count } = branchRequest.parse(input);
  const turn = await db().turn.findUnique({ where: { id: turnId }, select: { taskId: true, index: true, checkpoint: { select: { state: true } } } });
  if (!turn) throw new NotFoundError(`turn ${turnId} does not exist`);
  if (!turn.checkpoint) throw new ConflictError(`turn ${turn.index} has no checkpoint to resume from`);
  if (turn.checkpoint.state !== "live") throw new ConflictError(`the checkpoint of turn ${turn.index} was collected; branch from another turn`);
  const rollouts: RolloutId[] = [];
  for (let i = 0; i < count; i++) {
    rollouts.push(
      await createRollout({
        taskId: turn.taskId as TaskId,
        kind: "branch",
        branchedFromTurnId: turnId,
        ordinal: i,
        seed: Math.floor(Math.random() * 2 ** 31),
        hint: hint ? { kind: "text", text: hint } : null,
      }),
    );
  }
  startRollouts(rollouts);
  return { rollouts };
}

export const backtrackRequest = z.object({ branches: z.number().int().min(1).max(8).default(3) });

/** One verifier-guided review round over a task's failed rollouts, then the branches it chose. */
export async function backtrackTask(taskId: TaskId, input: unknown): Promise<{ reviewId: ReviewId; rollouts: RolloutId[]; skipped: string[] }> {
  const { branches } = backtrackRequest.parse(input);
  const client = db();
  if (!(await client.task.findUnique({ where: { id: taskId }, select: { id: true } }))) throw new NotFoundError(`task ${taskId} does not exist`);
  const failed = await client.rollout.findMany({ where: { taskId, status: "completed", reward: { lt: 1 } }, select: { id: true, round: true } });
  if (failed.length === 0) throw new ConflictError("this task has no failed rollout to review");
  const policyConfig = policyConfigFromEnv();
  const [driver, policy] = await Promise.all([sandboxDriver(), policyFor(policyConfig)]);
  const round = Math.max(0, ...failed.map((f) => f.round)) + 1;
  const selection = await createStrategy("review", { policy, policyConfig, driver }).select({
    experimentId: null,
    taskId,
    failed: failed.map((f) => f.id as RolloutId),
    round,
    maxBranches: branches,
    guidance: "tool-call",
    reviewInput: "feedback",
    seed: Date.now() % 2 ** 31,
  });
  if (selection.branches.length === 0) throw new ConflictError(`the review chose no branch: ${selection.skipped.join("; ")}`);
  const rollouts: RolloutId[] = [];
  for (const [ordinal, b] of selection.branches.entries()) {
    rollouts.push(await createRollout({ taskId, kind: "branch", branchedFromTurnId: b.boundaryTurnId, reviewId: selection.reviewId, round, ordinal, seed: Math.floor(Math.random() * 2 ** 31), hint: b.hint }));
  }
  startRollouts(rollouts, policyConfig);
  return { reviewId: selection.reviewId, rollouts, skipped: selection.skipped };
}
