import path from "node:path";
import type { CheckpointId, RolloutId, TurnId } from "../db/ids";
import { HINT_PREFIX } from "../policy/demo-policy";
import { PolicyError, type ChatMessage, type Policy, type PolicyTurn } from "../policy/types";
import { publish } from "../runtime/events";
import { copyDirInto, copyPathInto } from "../sandbox/copy-into";
import type { CheckpointResult, Sandbox, SandboxBase, SandboxDriver } from "../sandbox/types";
import { getTask, type Task } from "../tasks/task-store";
import { verifyCheckpoint } from "../verifier/run-verifier";
import { initialMessages } from "./prompts";
import { appendTurn, finishRollout, getRollout, lastTurnOf, loadPath, markRolloutRunning, type RolloutOutcome, type StartingHint } from "./rollout-store";
import { DEFAULT_TOOL_LIMITS, executeTool, parseToolCall, summarizeToolCall, TOOL_DEFINITIONS, type RawToolCall, type ToolLimits } from "./tools";

/** When a rollout stops if the agent does not submit. */
export interface RolloutLimits {
  maxSteps: number;
  maxTokens: number;
  wallClockMs: number;
}

export const DEFAULT_ROLLOUT_LIMITS: RolloutLimits = { maxSteps: 60, maxTokens: 2_000_000, wallClockMs: 30 * 60_000 };

export interface RunRolloutOptions {
  driver: SandboxDriver;
  policy: Policy;
  limits?: Partial<RolloutLimits>;
  toolLimits?: Partial<ToolLimits>;
  signal?: AbortSignal;
  /** Skip the verifier (tests that look at the loop only). */
  verify?: boolean;
}

export interface RolloutSummary {
  id: RolloutId;
  status: RolloutOutcome["status"];
  stopReason: string;
  steps: number;
  reward: number | null;
  /** per-turn time spent outside the model call and the tool itself: persisting, checkpointing, bookkeeping */
  overheadMs: number[];
}

/** Where a task's sandbox starts, for a driver. The Docker driver cannot use the host's root: it uses the base image. */
export function resolveBase(task: Task, driver: SandboxDriver): SandboxBase {
  const base = task.environment.base;
  if (base.kind === "host" && driver.name === "docker") return { kind: "image", ref: process.env.SPROUT_DOCKER_BASE_IMAGE ?? "sprout-base:bookworm" };
  return base;
}

/** A fresh sandbox holding the task's start: base, workspace files, setup commands. */
export async function prepareStart(task: Task, driver: SandboxDriver): Promise<{ sandbox: Sandbox; start: CheckpointResult }> {
  const sandbox = await driver.create({ base: resolveBase(task, driver), workdir: task.environment.workdir, env: task.environment.env, labels: { task: task.name } });
  try {
    const { environment } = task;
    await sandbox.exec(["mkdir", "-p", environment.workdir], { timeoutMs: 10_000 });
    if (environment.workspaceDir) await copyDirInto(sandbox, path.resolve(environment.workspaceDir), environment.workdir);
    for (const copy of environment.copies) await copyPathInto(sandbox, path.resolve(copy.from), copy.to);
    for (const command of environment.setup) {
      const r = await sandbox.exec(["/bin/bash", "-c", command], { cwd: environment.workdir, env: environment.env, timeoutMs: 600_000 });
      if (r.exitCode !== 0) throw new Error(`setup command failed (exit ${r.exitCode}): ${command}\n${r.stderr.slice(-2000)}`);
    }
    return { sandbox, start: await sandbox.checkpoint() };
  } catch (error) {
    await sandbox.destroy();
    throw error;
  }
}

function hintMessage(hint: StartingHint): ChatMessage | null {
  return hint.kind === "text" ? { role: "user", content: `${HINT_PREFIX} ${hint.text}` } : null;
}

/**
 * Run (or continue) one rollout: ask the policy for a turn, execute its tool call
 * in the sandbox, checkpoint, persist the turn with its checkpoint, repeat until
 * the agent submits or a limit is reached; then verify the final checkpoint.
 * A root starts from the task's prepared start; a branch restores its boundary
 * turn's checkpoint and the context up to it; a rollout that already has turns
 * (interrupted by a restart) continues from its last one.
 *
 * Turn N's checkpoint and commit run while turn N+1's model call does: the loop
 * waits for the checkpoint (state frozen, sandbox remounted) before turn N+1's
 * command runs, and for turn N's commit before turn N+1's checkpoint starts, so
 * at most one finished turn is uncommitted. A checkpoint is always committed
 * together with its own turn's context, after its layer is stored; a crash loses
 * at most the turn in flight and the one whose commit was pending (its layer is
 * then unreferenced, and collection removes it). Waiting for either is engine
 * overhead of the turn that waits; the rollout's end waits for both.
 */
export async function runRollout(id: RolloutId, options: RunRolloutOptions): Promise<RolloutSummary> {
  const limits = { ...DEFAULT_ROLLOUT_LIMITS, ...options.limits };
  const { driver, policy, signal } = options;
  const rollout = await getRollout(id);
  if (!rollout) throw new Error(`rollout ${id} does not exist`);
  const task = await getTask(rollout.taskId);
  if (!task) throw new Error(`task ${rollout.taskId} does not exist`);
  const toolLimits: ToolLimits = { ...DEFAULT_TOOL_LIMITS, workdir: task.environment.workdir, ...options.toolLimits };
  const overheadMs: number[] = [];
  const started = Date.now();
  let sandbox: Sandbox | null = null;
  let steps = rollout.steps;
  let tokens = rollout.promptTokens + rollout.completionTokens;

  // The previous turn's checkpoint and commit, still running while this turn starts.
  let inFlight: { checkpointed: Promise<unknown>; committed: Promise<unknown> } | null = null;
  /** Waits for the previous turn to be checkpointed and committed; throws if either failed. */
  const drain = async (): Promise<void> => {
    const pending = inFlight;
    inFlight = null;
    if (pending) await pending.committed;
  };

  const finish = async (outcome: RolloutOutcome): Promise<RolloutSummary> => {
    await finishRollout(id, outcome);
    publish({ type: "rollout", taskId: task.id, rolloutId: id, status: outcome.status, experimentId: null });
    return { id, status: outcome.status, stopReason: outcome.stopReason, steps, reward: outcome.reward ?? null, overheadMs };
  };

  try {
    // Where this rollout resumes: its own last turn, its boundary, or the task's start.
    const own = (await lastTurnOf(id))?.id ?? null;
    const resumeFrom = own ?? rollout.branchedFromTurnId;
    const messages = initialMessages({ instruction: task.instruction, workdir: task.environment.workdir });
    let parentId: TurnId | null = null;
    let parentCheckpointId: CheckpointId | null = null;
    let index = 0;
    if (resumeFrom) {
      const prefix = await loadPath(resumeFrom);
      const last = prefix?.turns.at(-1);
      if (!prefix || !last) return await finish({ status: "error", stopReason: "error", error: `turn ${resumeFrom} does not exist` });
      if (!last.checkpoint || last.checkpoint.state !== "live") {
        return await finish({ status: "error", stopReason: "error", error: `the checkpoint of turn ${last.index} was collected; it cannot be resumed` });
      }
      if (last.checkpoint.backend !== driver.name) {
        return await finish({ status: "error", stopReason: "error", error: `turn ${last.index} was checkpointed by the ${last.checkpoint.backend} driver, not ${driver.name}` });
      }
      prefix.turns.forEach((t, i) => {
        const h = prefix.hints.get(i);
        const hm = h ? hintMessage(h) : null;
        if (hm) messages.push(hm);
        messages.push(...t.messages);
      });
      parentId = last.id;
      parentCheckpointId = last.checkpoint.id;
      index = last.index + 1;
      sandbox = await driver.create({ fromCheckpoint: last.checkpoint.ref, workdir: task.environment.workdir, env: task.environment.env, labels: { rollout: id } });
      // A branch starts from its boundary's checkpoint; a resumed rollout keeps the start it had.
      await markRolloutRunning(id, driver.name, null, rollout.startCheckpointId ?? (own ? null : last.checkpoint.id));
    } else {
      const prepared = await prepareStart(task, driver);
      sandbox = prepared.sandbox;
      parentCheckpointId = await markRolloutRunning(id, driver.name, prepared.start);
    }
    publish({ type: "rollout", taskId: task.id, rolloutId: id, status: "running", experimentId: null });

    // A branch's starting turn: text guidance joins the context; a tool call runs as the first turn.
    let pendingHintCall: { message: string; call: RawToolCall } | null = null;
    if (rollout.hint && !own) {
      const hm = hintMessage(rollout.hint);
      if (hm) messages.push(hm);
      if (rollout.hint.kind === "tool-call") {
        // Marked as guidance in the context, so the policy (and a reader) can tell it from its own turns.
        pendingHintCall = { message: `${HINT_PREFIX} ${rollout.hint.message}`.trim(), call: { id: `hint_${id}`, name: rollout.hint.name, arguments: rollout.hint.arguments } };
      }
    }

    let stopReason = "max-steps";
    while (true) {
      if (signal?.aborted) {
        await drain();
        return await finish({ status: "cancelled", stopReason: "cancelled" });
      }
      if (steps >= limits.maxSteps) {
        stopReason = "max-steps";
        break;
      }
      if (tokens >= limits.maxTokens) {
        stopReason = "max-tokens";
        break;
      }
      if (Date.now() - started >= limits.wallClockMs) {
        stopReason = "timeout";
        break;
      }

      const turnStart = performance.now();
      let proposal: PolicyTurn;
      let author: "agent" | "hint" = "agent";
      if (pendingHintCall) {
        proposal = { message: pendingHintCall.message, toolCall: pendingHintCall.call, promptTokens: 0, completionTokens: 0 };
        author = "hint";
        pendingHintCall = null;
      } else {
        try {
          proposal = await policy.next({ messages, tools: TOOL_DEFINITIONS, taskName: task.name, seed: rollout.seed, signal });
        } catch (error) {
          await drain();
          if (signal?.aborted) return await finish({ status: "cancelled", stopReason: "cancelled" });
          const reason = error instanceof PolicyError ? error.message : `the policy failed: ${error instanceof Error ? error.message : String(error)}`;
          return await finish({ status: "error", stopReason: "policy-error", error: reason });
        }
      }
      const modelMs = Math.round(performance.now() - turnStart);

      const assistant: ChatMessage = {
        role: "assistant",
        content: proposal.message,
        ...(proposal.toolCall ? { tool_calls: [{ id: proposal.toolCall.id, type: "function" as const, function: { name: proposal.toolCall.name, arguments: proposal.toolCall.arguments } }] } : {}),
      };
      const turnMessages: ChatMessage[] = [assistant];
      let observation: { text: string; exitCode: number | null; isError: boolean; submitted: boolean; execMs: number };
      let tool: string | null = null;
      let summary: string;
      if (!proposal.toolCall) {
        observation = { text: "error: your answer had no tool call; call one of the tools (or submit when done)", exitCode: null, isError: true, submitted: false, execMs: 0 };
        turnMessages.push({ role: "user", content: observation.text });
        summary = `(no tool call) ${proposal.message.replace(/\s+/g, " ").slice(0, 150)}`;
      } else {
        const parsed = parseToolCall(proposal.toolCall);
        tool = proposal.toolCall.name;
        if (parsed.ok) {
          // The command runs on the state the previous turn's checkpoint froze.
          await inFlight?.checkpointed;
          observation = await executeTool(sandbox, parsed.call, toolLimits, { checkpointAfter: true });
          summary = summarizeToolCall(parsed.call);
        } else {
          observation = { text: parsed.error, exitCode: null, isError: true, submitted: false, execMs: 0 };
          summary = `${proposal.toolCall.name}(${proposal.toolCall.arguments.replace(/\s+/g, " ").slice(0, 150)})`;
        }
        turnMessages.push({ role: "tool", tool_call_id: proposal.toolCall.id, content: observation.text });
      }

      // One uncommitted finished turn at most; lineage rows are written in turn order.
      await drain();
      const turnIndex = index;
      const live = sandbox;
      const checkpointed = live.checkpoint();
      const committed = checkpointed.then(async (checkpoint) => {
        const saved = await appendTurn({
          rolloutId: id,
          taskId: task.id,
          index: turnIndex,
          parentId,
          author,
          tool,
          summary,
          exitCode: observation.exitCode,
          isError: observation.isError,
          promptTokens: proposal.promptTokens,
          completionTokens: proposal.completionTokens,
          modelMs,
          execMs: observation.execMs,
          backend: driver.name,
          checkpoint,
          parentCheckpointId,
          assistantMessage: proposal.message,
          toolCall: proposal.toolCall,
          observation: observation.text,
          messages: turnMessages,
          logprobs: proposal.logprobs,
        });
        parentId = saved.turnId;
        parentCheckpointId = saved.checkpointId;
        publish({ type: "turn", taskId: task.id, rolloutId: id, turnId: saved.turnId });
      });
      // Awaited later (drain, or before the next command); a failure surfaces there.
      checkpointed.catch(() => undefined);
      committed.catch(() => undefined);
      inFlight = { checkpointed, committed };
      messages.push(...turnMessages);
      if (tool !== null) steps += 1;
      tokens += proposal.promptTokens + proposal.completionTokens;
      index += 1;
      overheadMs.push(Math.max(0, performance.now() - turnStart - modelMs - observation.execMs));
      if (observation.submitted) {
        stopReason = "submitted";
        break;
      }
    }
    // The last turn's checkpoint and commit are on its critical path.
    const drainStart = performance.now();
    await drain();
    if (overheadMs.length > 0) overheadMs[overheadMs.length - 1]! += performance.now() - drainStart;

    await sandbox.destroy();
    sandbox = null;
    if (options.verify === false) return await finish({ status: "completed", stopReason });
    const ref = (await lastTurnOf(id))?.checkpointRef;
    if (!ref) return await finish({ status: "completed", stopReason, reward: 0, partialScore: 0, verifierFeedback: "no turn was taken" });
    const result = await verifyCheckpoint(driver, ref, task);
    return await finish({ status: "completed", stopReason, reward: result.reward, partialScore: result.partialScore, verifierFeedback: result.feedback });
  } catch (error) {
    await inFlight?.committed.catch(() => undefined);
    const message = error instanceof Error ? error.message : String(error);
    return await finish({ status: "error", stopReason: "error", error: message });
  } finally {
    await sandbox?.destroy().catch(() => undefined);
  }
}

