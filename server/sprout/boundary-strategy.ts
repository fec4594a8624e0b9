import { z } from "zod";
import { db } from "../db/client";
import type { ExperimentId, ReviewId, RolloutId, TaskId } from "../db/ids";
import type { SandboxDriver } from "../sandbox/types";
import { getTask } from "../tasks/task-store";
import { verifyCheckpoint } from "../verifier/run-verifier";
import { checkAnswer, type BranchPlan } from "./review/review-answer";
import { buildReviewInput, renderReviewInput, type ReviewInputMode } from "./review/review-input";
import { reviewPrompt, type Guidance } from "./review/review-prompt";
import type { Reviewer } from "./review/reviewer";

export const strategyName = z.enum(["review", "verifier-score", "random", "entropy"]);
export type StrategyName = z.infer<typeof strategyName>;

export interface SelectContext {
  experimentId: ExperimentId | null;
  taskId: TaskId;
  /** the failed attempts so far (roots and earlier branches) */
  failed: RolloutId[];
  round: number;
  maxBranches: number;
  guidance: Guidance;
  reviewInput: ReviewInputMode;
  seed: number;
  signal?: AbortSignal;
}

export interface Selection {
  reviewId: ReviewId;
  branches: BranchPlan[];
  skipped: string[];
}

/** Chooses where failed attempts resume (boundaries) and how (starting turns). Every choice is stored as a Review. */
export interface BoundaryStrategy {
  readonly name: StrategyName;
  select(ctx: SelectContext): Promise<Selection>;
}

async function storeReview(ctx: SelectContext, fields: { config: object; inputSummary: string; prompt?: string; answer?: string; branches: BranchPlan[]; status: string; error?: string; promptTokens?: number; completionTokens?: number }): Promise<ReviewId> {
  const row = await db().review.create({
    data: {
      experimentId: ctx.experimentId,
      taskId: ctx.taskId,
      round: ctx.round,
      config: JSON.stringify(fields.config),
      inputSummary: fields.inputSummary,
      prompt: fields.prompt ?? "",
      answer: fields.answer ?? "",
      decision: JSON.stringify(fields.branches),
      status: fields.status,
      error: fields.error ?? null,
      promptTokens: fields.promptTokens ?? 0,
      completionTokens: fields.completionTokens ?? 0,
    },
    select: { id: true },
  });
  return row.id as ReviewId;
}

/** The actor as analyst and reviewer (SPROUT's own strategy). An invalid answer is retried once with the error in the prompt. */
export function reviewStrategy(reviewer: Reviewer): BoundaryStrategy {
  return {
    name: "review",
    async select(ctx) {
      const input = await buildReviewInput(ctx.taskId, ctx.failed, ctx.reviewInput);
      const config = { strategy: "review", reviewer: reviewer.name, guidance: ctx.guidance, reviewInput: ctx.reviewInput, maxBranches: ctx.maxBranches };
      let error: string | undefined;
      let tokens = { prompt: 0, completion: 0 };
      const prompts: string[] = [];
      const answers: string[] = [];
      for (let attempt = 0; attempt < 2; attempt++) {
        const prompt = reviewPrompt(input, ctx.maxBranches, ctx.guidance, error);
        const reply = await reviewer.review(input, prompt, { maxBranches: ctx.maxBranches, guidance: ctx.guidance, seed: ctx.seed + attempt, signal: ctx.signal });
        tokens = { prompt: tokens.prompt + reply.promptTokens, completion: tokens.completion + reply.completionTokens };
        prompts.push(prompt.map((m) => m.content).join("\n\n"));
        answers.push(reply.text);
        const checked = checkAnswer(reply.text, input, ctx.maxBranches, ctx.guidance);
        if (checked.ok) {
          const reviewId = await storeReview(ctx, { config, inputSummary: renderReviewInput(input), prompt: prompts.join("\n\n---\n\n"), answer: answers.join("\n\n---\n\n"), branches: checked.branches, status: "completed", promptTokens: tokens.prompt, completionTokens: tokens.completion });
          return { reviewId, branches: checked.branches, skipped: checked.skipped };
        }
        error = checked.error;
      }
      const reviewId = await storeReview(ctx, { config, inputSummary: renderReviewInput(input), prompt: prompts.join("\n\n---\n\n"), answer: answers.join("\n\n---\n\n"), branches: [], status: "failed", error, promptTokens: tokens.prompt, completionTokens: tokens.completion });
      return { reviewId, branches: [], skipped: [error ?? "the reviewer gave no usable answer"] };
    },
  };
}

function seeded(seed: number) {
  let s = seed >>> 0 || 7;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** Resume from random turns of the failed attempts (a baseline). */
export function randomStrategy(): BoundaryStrategy {
  return {
    name: "random",
    async select(ctx) {
      const input = await buildReviewInput(ctx.taskId, ctx.failed, "reward-only");
      const rand = seeded(ctx.seed);
      const pool = input.attempts.flatMap((a) => a.turns.slice(0, -1).filter((t) => t.resumable).map((t) => ({ a, t })));
      const branches: BranchPlan[] = [];
      while (branches.length < ctx.maxBranches && pool.length > 0) {
        const [pick] = pool.splice(Math.floor(rand() * pool.length), 1);
        if (pick) branches.push({ boundaryTurnId: pick.t.turnId, attempt: pick.a.label, turnIndex: pick.t.index, rationale: "random boundary", hint: null });
      }
      const reviewId = await storeReview(ctx, { config: { strategy: "random" }, inputSummary: `${input.attempts.length} failed attempts`, branches, status: "completed" });
      return { reviewId, branches, skipped: [] };
    },
  };
}

/**
 * Verify the checkpoints of the failed attempts and resume from the latest
 * best-scoring turns: cheap, since checkpoints restore in milliseconds, and it
 * needs no model. Only every `stride`-th turn is verified on long attempts.
 */
export function verifierScoreStrategy(driver: SandboxDriver, options: { maxVerifications?: number } = {}): BoundaryStrategy {
  return {
    name: "verifier-score",
    async select(ctx) {
      const task = await getTask(ctx.taskId);
      if (!task) throw new Error(`task ${ctx.taskId} does not exist`);
      const input = await buildReviewInput(ctx.taskId, ctx.failed, "reward-only");
      const turns = await db().turn.findMany({
        where: { id: { in: input.attempts.flatMap((a) => a.turns.map((t) => t.turnId)) }, checkpoint: { state: "live" } },
        select: { id: true, checkpoint: { select: { ref: true } } },
      });
      const refOf = new Map(turns.map((t) => [t.id, t.checkpoint!.ref]));
      const scored = new Map<string, number>();
      const max = options.maxVerifications ?? 24;
      const candidates = input.attempts.flatMap((a) => a.turns.slice(0, -1).map((t) => ({ a, t })));
      const stride = Math.max(1, Math.ceil(candidates.length / max));
      const scoredTurns: { a: (typeof candidates)[number]["a"]; t: (typeof candidates)[number]["t"]; score: number }[] = [];
      for (let i = candidates.length - 1; i >= 0; i -= stride) {
        const c = candidates[i]!;
        const ref = refOf.get(c.t.turnId);
        if (!ref) continue;
        const score = scored.get(ref) ?? (await verifyCheckpoint(driver, ref, task)).partialScore;
        scored.set(ref, score);
        scoredTurns.push({ ...c, score });
      }
      scoredTurns.sort((x, y) => y.score - x.score || y.t.index - x.t.index);
      const branches: BranchPlan[] = scoredTurns.slice(0, ctx.maxBranches).map(({ a, t, score }) => ({
        boundaryTurnId: t.turnId,
        attempt: a.label,
        turnIndex: t.index,
        rationale: `${Math.round(score * 100)}% of tests pass after this turn`,
        hint: null,
      }));
      const reviewId = await storeReview(ctx, { config: { strategy: "verifier-score", verified: scored.size }, inputSummary: `${scored.size} checkpoints verified`, branches, status: "completed" });
      return { reviewId, branches, skipped: [] };
    },
  };
}

/** Resume where the policy was least sure (highest mean token surprisal); needs a policy that returns log-probabilities. */
export function entropyStrategy(): BoundaryStrategy {
  return {
    name: "entropy",
    async select(ctx) {
      const input = await buildReviewInput(ctx.taskId, ctx.failed, "reward-only");
      const ids = input.attempts.flatMap((a) => a.turns.map((t) => t.turnId));
      const contents = await db().turnContent.findMany({ where: { turnId: { in: ids }, logprobs: { not: null } }, select: { turnId: true, logprobs: true } });
      if (contents.length === 0) throw new Error("the entropy strategy needs log-probabilities, and this policy returned none");
      const logprobs = z.array(z.object({ logprob: z.number() }));
      const surprise = new Map(contents.map((c) => {
        const lp = logprobs.safeParse(JSON.parse(c.logprobs!));
        const values = lp.success ? lp.data.map((x) => -x.logprob) : [];
        return [c.turnId, values.length ? values.reduce((s, v) => s + v, 0) / values.length : 0];
      }));
      const ranked = input.attempts
        .flatMap((a) => a.turns.map((t, i) => ({ a, t, boundary: a.turns[i - 1], s: surprise.get(t.turnId) ?? 0 })))
        .filter((x) => x.boundary?.resumable)
        .sort((x, y) => y.s - x.s);
      const branches: BranchPlan[] = [];
      for (const r of ranked) {
        if (branches.length >= ctx.maxBranches) break;
        if (branches.some((b) => b.boundaryTurnId === r.boundary!.turnId)) continue;
        branches.push({ boundaryTurnId: r.boundary!.turnId, attempt: r.a.label, turnIndex: r.boundary!.index, rationale: `turn ${r.t.index} had mean surprisal ${r.s.toFixed(2)}`, hint: null });
      }
      const reviewId = await storeReview(ctx, { config: { strategy: "entropy" }, inputSummary: `${contents.length} turns with log-probabilities`, branches, status: "completed" });
      return { reviewId, branches, skipped: [] };
    },
  };
}
