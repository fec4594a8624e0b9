import { z } from "zod";
import type { TurnId } from "../../db/ids";
import type { StartingHint } from "../../rollout/rollout-store";
import { TOOL_DEFINITIONS } from "../../rollout/tools";
import type { ReviewInput } from "./review-input";

/** The reviewer's answer, as JSON: boundaries to resume from and a starting turn for each branch. */
export const reviewAnswerSchema = z.object({
  analysis: z.string().default(""),
  branches: z
    .array(
      z.object({
        attempt: z.string().min(1),
        turn: z.number().int().min(0),
        rationale: z.string().default(""),
        starting_turn: z.union([
          z.object({ kind: z.literal("tool_call"), tool: z.string(), arguments: z.record(z.string(), z.unknown()), message: z.string().default("") }),
          z.object({ kind: z.literal("text"), text: z.string().min(1) }),
        ]),
      }),
    )
    .min(1),
});
export type ReviewAnswer = z.infer<typeof reviewAnswerSchema>;

export interface BranchPlan {
  /** the turn to resume after (its checkpoint and context are restored) */
  boundaryTurnId: TurnId;
  attempt: string;
  turnIndex: number;
  rationale: string;
  hint: StartingHint | null;
}

export type AnswerCheck = { ok: true; analysis: string; branches: BranchPlan[]; skipped: string[] } | { ok: false; error: string };

/** Pull the JSON object out of a model's answer (it may wrap it in prose or a code fence). */
export function extractJson(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = fenced?.[1] ?? text;
  const start = body.indexOf("{");
  const end = body.lastIndexOf("}");
  if (start < 0 || end <= start) throw new Error("the answer contains no JSON object");
  return JSON.parse(body.slice(start, end + 1));
}

/**
 * Validate an answer against what exists: each branch must name an attempt and a
 * turn of it that can be resumed, and there may be at most `maxBranches`.
 * Branches that name something impossible are skipped with their reason; an
 * answer that is not valid at all is an error (the caller retries once).
 */
export function checkAnswer(text: string, input: ReviewInput, maxBranches: number, guidance: "tool-call" | "text" | "none"): AnswerCheck {
  let parsed: ReviewAnswer;
  try {
    parsed = reviewAnswerSchema.parse(extractJson(text));
  } catch (error) {
    const detail = error instanceof z.ZodError ? error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") : (error as Error).message;
    return { ok: false, error: `the answer is not valid: ${detail}` };
  }
  if (parsed.branches.length > maxBranches) return { ok: false, error: `the answer asks for ${parsed.branches.length} branches; at most ${maxBranches} are allowed` };
  const branches: BranchPlan[] = [];
  const skipped: string[] = [];
  const toolNames = new Set<string>(TOOL_DEFINITIONS.map((t) => t.function.name));
  for (const b of parsed.branches) {
    const attempt = input.attempts.find((a) => a.label === b.attempt);
    const turn = attempt?.turns.find((t) => t.index === b.turn);
    if (!attempt) skipped.push(`attempt ${b.attempt} does not exist`);
    else if (!turn) skipped.push(`attempt ${b.attempt} has no turn ${b.turn}`);
    else if (!turn.resumable) skipped.push(`turn ${b.turn} of attempt ${b.attempt} has no checkpoint left to resume from`);
    else {
      let hint: StartingHint | null = null;
      const s = b.starting_turn;
      if (guidance === "tool-call") {
        if (s.kind === "tool_call" && toolNames.has(s.tool)) hint = { kind: "tool-call", name: s.tool, arguments: JSON.stringify(s.arguments), message: s.message || b.rationale };
        else if (s.kind === "tool_call") {
          skipped.push(`branch from ${b.attempt}[${b.turn}] names the unknown tool ${s.tool}`);
          continue;
        } else hint = { kind: "text", text: s.text };
      } else if (guidance === "text") {
        hint = { kind: "text", text: s.kind === "text" ? s.text : `${s.message || b.rationale} Next, call ${s.tool} with ${JSON.stringify(s.arguments)}.` };
      }
      branches.push({ boundaryTurnId: turn.turnId, attempt: attempt.label, turnIndex: turn.index, rationale: b.rationale, hint });
    }
  }
  if (branches.length === 0) return { ok: false, error: `no branch of the answer can be started: ${skipped.join("; ")}` };
  return { ok: true, analysis: parsed.analysis, branches, skipped };
}
