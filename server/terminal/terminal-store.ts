import { db } from "../db/client";
import type { CheckpointId, RolloutId, TaskId, TurnId } from "../db/ids";
import type { ChatMessage } from "../policy/types";
import { appendTurn, createRollout, finishRollout, markRolloutRunning } from "../rollout/rollout-store";
import { publish } from "../runtime/events";
import type { CheckpointResult, DriverName } from "../sandbox/types";
import { getTask } from "../tasks/task-store";

/** The turn a terminal stands on: where its checkpoint is and what the task's environment was. */
export interface TerminalOrigin {
  turnId: TurnId;
  turnIndex: number;
  taskId: TaskId;
  taskName: string;
  rolloutId: RolloutId;
  checkpoint: { id: CheckpointId; backend: DriverName; ref: string; state: "live" | "collected" } | null;
  workdir: string;
  env: Record<string, string>;
}

export async function loadTerminalOrigin(turnId: TurnId): Promise<TerminalOrigin | null> {
  const turn = await db().turn.findUnique({
    where: { id: turnId },
    select: { id: true, index: true, taskId: true, rolloutId: true, checkpoint: { select: { id: true, backend: true, ref: true, state: true } } },
  });
  if (!turn) return null;
  const task = await getTask(turn.taskId as TaskId);
  if (!task) return null;
  const c = turn.checkpoint;
  return {
    turnId: turn.id as TurnId,
    turnIndex: turn.index,
    taskId: task.id,
    taskName: task.name,
    rolloutId: turn.rolloutId as RolloutId,
    checkpoint: c ? { id: c.id as CheckpointId, backend: c.backend as DriverName, ref: c.ref, state: c.state === "collected" ? "collected" : "live" } : null,
    workdir: task.environment.workdir,
    env: task.environment.env ?? {},
  };
}

/** One save of a terminal: what was typed and shown since the previous save, and the checkpoint made. */
export interface HumanTurnInput {
  origin: TerminalOrigin;
  /** The human rollout of this terminal; created on the first save. */
  rolloutId: RolloutId | null;
  /** The turn this one follows: the origin turn, then the previous save. */
  parent: { turnId: TurnId; index: number; checkpointId: CheckpointId | null };
  backend: DriverName;
  checkpoint: CheckpointResult;
  commands: readonly string[];
  outputTail: string;
  elapsedMs: number;
}

/**
 * Record a save as a human turn on a human rollout branching from the origin turn, so an agent
 * branch can later start from it like from any turn. Its context message tells the agent what a
 * person did here.
 */
export async function recordHumanTurn(input: HumanTurnInput): Promise<{ rolloutId: RolloutId; turnId: TurnId; index: number; checkpointId: CheckpointId }> {
  const { origin } = input;
  let rolloutId = input.rolloutId;
  if (!rolloutId) {
    rolloutId = await createRollout({ taskId: origin.taskId, kind: "human", branchedFromTurnId: origin.turnId });
    await markRolloutRunning(rolloutId, input.backend, null, origin.checkpoint?.id ?? null);
    publish({ type: "rollout", taskId: origin.taskId, rolloutId, status: "running", experimentId: null });
  }
  const command = input.commands.join("\n");
  const summary = input.commands.length === 0 ? "(terminal: no commands typed)" : input.commands.join("; ").slice(0, 200);
  const message: ChatMessage = {
    role: "user",
    content:
      `A person worked in a terminal on this sandbox and saved its state.\n` +
      `Commands they typed:\n${command || "(none)"}\n\nTerminal output (last lines):\n${input.outputTail}`,
  };
  const index = input.parent.index + 1;
  const saved = await appendTurn({
    rolloutId,
    taskId: origin.taskId,
    index,
    parentId: input.parent.turnId,
    author: "human",
    tool: "bash",
    summary,
    exitCode: null,
    isError: false,
    promptTokens: 0,
    completionTokens: 0,
    modelMs: 0,
    execMs: Math.round(input.elapsedMs),
    backend: input.backend,
    checkpoint: input.checkpoint,
    parentCheckpointId: input.parent.checkpointId,
    assistantMessage: "",
    toolCall: { id: `human_${index}`, name: "bash", arguments: JSON.stringify({ command }) },
    observation: input.outputTail,
    messages: [message],
  });
  publish({ type: "turn", taskId: origin.taskId, rolloutId, turnId: saved.turnId });
  return { rolloutId, turnId: saved.turnId, index, checkpointId: saved.checkpointId };
}

/** The terminal closed: its human rollout is complete (its turns stay). */
export async function finishHumanRollout(taskId: TaskId, rolloutId: RolloutId): Promise<void> {
  await finishRollout(rolloutId, { status: "completed", stopReason: "terminal closed" });
  publish({ type: "rollout", taskId, rolloutId, status: "completed", experimentId: null });
}
