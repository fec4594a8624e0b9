import { db } from "../../db/client";
import type { RolloutId, TaskId, TurnId } from "../../db/ids";
import { startingHint } from "../../rollout/rollout-store";

/** What the reviewer is shown of the failed attempts (Table 5: full verifier feedback, or the reward only). */
export type ReviewInputMode = "feedback" | "reward-only";

export interface AttemptTurn {
  /** position in the attempt's trajectory (the restored prefix included) */
  index: number;
  turnId: TurnId;
  /** the tool call in one line */
  call: string;
  /** the tool's name (bash, view, create, edit, submit), null for a turn without a call */
  tool: string | null;
  /** what the call carried beyond its one-line summary: the full command, or the text written (cut) */
  detail: string;
  /** "hint" for a reviewer's starting turn, "human" for a person's, else "agent" */
  author: string;
  /** the observation, cut */
  observation: string;
  isError: boolean;
  /** the turn has a live checkpoint, so a branch can resume after it */
  resumable: boolean;
}

export interface FailedAttempt {
  label: string;
  rolloutId: RolloutId;
  reward: number;
  partialScore: number | null;
  feedback: string | null;
  /** for a branch: the index of the turn it resumed after (its turns up to there are the restored prefix) */
  resumedAfter: number | null;
  /** for a branch: the starting turn's guidance it was given, if any */
  guidance: string | null;
  turns: AttemptTurn[];
}

export interface ReviewInput {
  taskName: string;
  instruction: string;
  mode: ReviewInputMode;
  attempts: FailedAttempt[];
}

const OBSERVATION_CHARS = 240;
const DETAIL_CHARS = 700;

/** The argument of a stored tool call that the one-line summary cuts: a command, or what an edit or create wrote. */
function callDetail(toolCall: string | undefined): string {
  try {
    const call = JSON.parse(toolCall ?? "null") as { name?: string; arguments?: string } | null;
    const args = JSON.parse(call?.arguments || "{}") as Record<string, unknown>;
    const text = call?.name === "bash" ? args.command : call?.name === "edit" ? args.new_str : call?.name === "create" ? args.file_text : "";
    return typeof text === "string" ? text : "";
  } catch {
    return "";
  }
}

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+\n/g, "\n").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max)}…`;
}

function guidanceText(stored: string | null): string | null {
  if (!stored) return null;
  const hint = startingHint.safeParse(JSON.parse(stored));
  if (!hint.success) return null;
  return hint.data.kind === "text" ? hint.data.text : `${hint.data.message} (then ${hint.data.name} ${hint.data.arguments})`.trim();
}

/** The failed attempts of a task among `rolloutIds`, each as a compact list of turns with the verifier's verdict. */
export async function buildReviewInput(taskId: TaskId, rolloutIds: RolloutId[], mode: ReviewInputMode): Promise<ReviewInput> {
  const client = db();
  const task = await client.task.findUniqueOrThrow({ where: { id: taskId }, select: { name: true, instruction: true } });
  const allTurns = await client.turn.findMany({
    where: { taskId },
    select: {
      id: true,
      parentId: true,
      index: true,
      summary: true,
      tool: true,
      author: true,
      isError: true,
      rolloutId: true,
      checkpoint: { select: { state: true } },
      content: { select: { observation: true, toolCall: true } },
    },
  });
  const byId = new Map(allTurns.map((t) => [t.id, t]));
  const rollouts = await client.rollout.findMany({
    where: { id: { in: rolloutIds }, taskId, status: "completed", OR: [{ reward: null }, { reward: { lt: 1 } }] },
    select: { id: true, reward: true, partialScore: true, verifierFeedback: true, kind: true, round: true, ordinal: true, branchedFromTurnId: true, startingHint: true },
    orderBy: [{ round: "asc" }, { ordinal: "asc" }],
  });
  const attempts: FailedAttempt[] = [];
  for (const r of rollouts) {
    const last = allTurns.filter((t) => t.rolloutId === r.id).sort((a, b) => b.index - a.index)[0];
    if (!last) continue;
    const path: typeof allTurns = [];
    for (let t: (typeof allTurns)[number] | undefined = last; t; t = t.parentId ? byId.get(t.parentId) : undefined) path.push(t);
    path.reverse();
    attempts.push({
      label: String.fromCharCode(65 + attempts.length),
      rolloutId: r.id as RolloutId,
      reward: r.reward ?? 0,
      partialScore: mode === "feedback" ? r.partialScore : null,
      feedback: mode === "feedback" ? r.verifierFeedback : null,
      resumedAfter: r.branchedFromTurnId ? (byId.get(r.branchedFromTurnId)?.index ?? null) : null,
      guidance: guidanceText(r.startingHint),
      turns: path.map((t) => ({
        index: t.index,
        turnId: t.id as TurnId,
        call: t.summary,
        tool: t.tool,
        detail: cut(callDetail(t.content?.toolCall), DETAIL_CHARS),
        author: t.author,
        observation: cut(t.content?.observation ?? "", OBSERVATION_CHARS),
        isError: t.isError,
        resumable: t.checkpoint?.state === "live",
      })),
    });
  }
  return { taskName: task.name, instruction: task.instruction, mode, attempts };
}

/** The input as text, the way the reviewer reads it (also stored on the Review row). */
export function renderReviewInput(input: ReviewInput): string {
  const parts = [`# Task\n${input.instruction.trim()}`];
  for (const a of input.attempts) {
    const verdict =
      input.mode === "feedback"
        ? `Verifier: reward ${a.reward}${a.partialScore === null ? "" : `, ${Math.round(a.partialScore * 100)}% of tests passed`}\n${a.feedback ?? "(no feedback)"}`
        : `Verifier: reward ${a.reward} (no further feedback)`;
    const turns = a.turns
      .map((t) => {
        // The summary cuts commands at 200 characters and shows one line of an edit; the detail is what was run or written.
        const written = t.tool === "edit" || t.tool === "create" ? `\n    ✎ ${t.detail.replace(/\n/g, "\n      ")}` : t.tool === "bash" && t.detail.length > t.call.length + 1 ? `\n    $ ${t.detail.replace(/\n/g, "\n      ")}` : "";
        const by = t.author === "agent" ? "" : ` (${t.author === "hint" ? "starting turn" : t.author})`;
        return `[${t.index}]${by}${t.isError ? " (error)" : ""} ${t.call}${written}\n    → ${t.observation.replace(/\n/g, "\n      ")}`;
      })
      .join("\n");
    const origin = a.resumedAfter === null ? "" : `, resumed after turn ${a.resumedAfter} of an earlier attempt`;
    const guided = a.guidance ? `Starting guidance it was given: ${a.guidance}\n` : "";
    parts.push(`# Attempt ${a.label} (failed${origin})\n${guided}${turns}\n${verdict}`);
  }
  return parts.join("\n\n");
}
