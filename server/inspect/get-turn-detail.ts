import { db } from "../db/client";
import type { AnnotationId, RolloutId, TaskId, TurnId } from "../db/ids";

/** One annotation on a turn. */
export interface TurnAnnotation {
  id: AnnotationId;
  label: string;
  note: string;
  author: string;
  createdAt: string;
}

/** Everything the inspector shows of one turn. */
export interface TurnDetail {
  id: TurnId;
  taskId: TaskId;
  index: number;
  parentId: TurnId | null;
  author: string;
  tool: string | null;
  summary: string;
  exitCode: number | null;
  isError: boolean;
  createdAt: string;
  content: {
    assistantMessage: string;
    /** { id?, name, arguments } as the policy returned it; arguments may be a JSON string or an object */
    toolCall: unknown;
    observation: string;
    observationBytes: number;
  };
  tokens: { prompt: number; completion: number };
  timings: { modelMs: number; execMs: number; checkpointMs: number };
  rollout: {
    id: RolloutId;
    kind: string;
    status: string;
    stopReason: string | null;
    reward: number | null;
    partialScore: number | null;
    /** only on the rollout's last turn: that is where the verifier ran */
    verifierFeedback: string | null;
    error: string | null;
    startingHint: string | null;
    ordinal: number;
    round: number;
    steps: number;
    isLastTurn: boolean;
  };
  checkpoint: { id: string; backend: string; ref: string; bytesAdded: number; state: string } | null;
  annotations: TurnAnnotation[];
  /** rollouts that were resumed from this turn */
  branches: { id: RolloutId; status: string; reward: number | null }[];
}

/** A turn with its content, rollout, checkpoint and annotations; null when it does not exist. */
export async function getTurnDetail(turnId: TurnId): Promise<TurnDetail | null> {
  const client = db();
  const t = await client.turn.findUnique({
    where: { id: turnId },
    include: {
      content: { select: { assistantMessage: true, toolCall: true, observation: true } },
      checkpoint: { select: { id: true, backend: true, ref: true, bytesAdded: true, state: true } },
      annotations: { orderBy: { createdAt: "asc" } },
      branches: { select: { id: true, status: true, reward: true }, orderBy: { createdAt: "asc" } },
      rollout: true,
    },
  });
  if (!t) return null;
  const last = await client.turn.findFirst({ where: { rolloutId: t.rolloutId }, orderBy: { index: "desc" }, select: { id: true } });
  const isLastTurn = last?.id === t.id;
  let toolCall: unknown = null;
  try {
    toolCall = JSON.parse(t.content?.toolCall ?? "null");
  } catch {
    toolCall = t.content?.toolCall ?? null;
  }
  const r = t.rollout;
  const observation = t.content?.observation ?? "";
  return {
    id: t.id as TurnId,
    taskId: t.taskId as TaskId,
    index: t.index,
    parentId: t.parentId as TurnId | null,
    author: t.author,
    tool: t.tool,
    summary: t.summary,
    exitCode: t.exitCode,
    isError: t.isError,
    createdAt: t.createdAt.toISOString(),
    content: {
      assistantMessage: t.content?.assistantMessage ?? "",
      toolCall,
      observation,
      observationBytes: Buffer.byteLength(observation),
    },
    tokens: { prompt: t.promptTokens, completion: t.completionTokens },
    timings: { modelMs: t.modelMs, execMs: t.execMs, checkpointMs: t.checkpointMs },
    rollout: {
      id: r.id as RolloutId,
      kind: r.kind,
      status: r.status,
      stopReason: r.stopReason,
      reward: r.reward,
      partialScore: r.partialScore,
      verifierFeedback: isLastTurn ? r.verifierFeedback : null,
      error: isLastTurn ? r.error : null,
      startingHint: r.startingHint,
      ordinal: r.ordinal,
      round: r.round,
      steps: r.steps,
      isLastTurn,
    },
    checkpoint: t.checkpoint ? { ...t.checkpoint, bytesAdded: Number(t.checkpoint.bytesAdded) } : null,
    annotations: t.annotations.map((a) => ({ id: a.id as AnnotationId, label: a.label, note: a.note, author: a.author, createdAt: a.createdAt.toISOString() })),
    branches: t.branches.map((b) => ({ id: b.id as RolloutId, status: b.status, reward: b.reward })),
  };
}
