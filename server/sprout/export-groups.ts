import { db } from "../db/client";
import type { ExperimentId, TaskId, TurnId } from "../db/ids";
import type { ChatMessage } from "../policy/types";
import { HINT_PREFIX } from "../policy/demo-policy";
import { initialMessages } from "../rollout/prompts";
import { loadPath } from "../rollout/rollout-store";
import { getTask } from "../tasks/task-store";

/** One line of the training-groups JSONL: a rollout, its reward and its advantage within its task's group. */
export interface GroupLine {
  task: string;
  group_id: string;
  rollout_id: string;
  kind: string;
  round: number;
  reward: number;
  /** GRPO: (reward − group mean) / (group std + 1e-6); 0 when every member has the same reward */
  advantage: number;
  /** the learner's input: the restored prefix plus the rollout's own turns; the review that chose the branch is not in it */
  messages: ChatMessage[];
  /** per message: 1 where the rollout itself generated it (its own assistant turns), else 0 (prompt, prefix, observations, starting turn) */
  generated_mask: number[];
}

export function grpoAdvantages(rewards: number[]): number[] {
  const n = rewards.length;
  if (n === 0) return [];
  const mean = rewards.reduce((s, r) => s + r, 0) / n;
  const std = Math.sqrt(rewards.reduce((s, r) => s + (r - mean) ** 2, 0) / n);
  return rewards.map((r) => (std === 0 ? 0 : (r - mean) / (std + 1e-6)));
}

/**
 * The training groups of an experiment (or of every rollout of a task when no
 * experiment is given): one group per task, one line per finished rollout.
 */
export async function* exportGroups(filter: { experimentId?: ExperimentId; taskId?: TaskId }): AsyncGenerator<GroupLine> {
  const client = db();
  const rollouts = await client.rollout.findMany({
    where: { status: "completed", reward: { not: null }, ...(filter.experimentId ? { experimentId: filter.experimentId } : {}), ...(filter.taskId ? { taskId: filter.taskId } : {}) },
    select: { id: true, taskId: true, kind: true, round: true, reward: true, experimentId: true },
    orderBy: [{ taskId: "asc" }, { round: "asc" }, { ordinal: "asc" }],
  });
  const byTask = new Map<string, typeof rollouts>();
  for (const r of rollouts) byTask.set(r.taskId, [...(byTask.get(r.taskId) ?? []), r]);
  for (const [taskId, group] of byTask) {
    const task = await getTask(taskId as TaskId);
    if (!task) continue;
    const advantages = grpoAdvantages(group.map((r) => r.reward ?? 0));
    for (const [i, r] of group.entries()) {
      const last = await client.turn.findFirst({ where: { rolloutId: r.id }, orderBy: { index: "desc" }, select: { id: true } });
      const messages: ChatMessage[] = initialMessages({ instruction: task.instruction, workdir: task.environment.workdir });
      const mask = messages.map(() => 0);
      const path = last ? await loadPath(last.id as TurnId) : null;
      path?.turns.forEach((t, k) => {
        const hint = path.hints.get(k);
        if (hint?.kind === "text") {
          messages.push({ role: "user", content: `${HINT_PREFIX} ${hint.text}` });
          mask.push(0);
        }
        for (const m of t.messages) {
          messages.push(m);
          const own = t.rolloutId === r.id && m.role === "assistant" && !m.content.startsWith(HINT_PREFIX);
          mask.push(own ? 1 : 0);
        }
      });
      yield {
        task: task.name,
        group_id: `${r.experimentId ?? "all"}:${task.name}`,
        rollout_id: r.id,
        kind: r.kind,
        round: r.round,
        reward: r.reward ?? 0,
        advantage: Number(advantages[i]!.toFixed(6)),
        messages,
        generated_mask: mask,
      };
    }
  }
}

/** The groups as a JSONL byte stream (for a download). */
export function exportGroupsStream(filter: { experimentId?: ExperimentId; taskId?: TaskId }): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const lines = exportGroups(filter);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`${JSON.stringify(next.value)}\n`));
    },
  });
}
