import { db } from "../db/client";
import type { CliArgs } from "./main";
import { UsageError } from "./usage-error";

export async function showCommand(args: CliArgs, rest: string[]): Promise<number> {
  const id = rest[0];
  if (!id) throw new UsageError("usage: npm run sprout -- show <rolloutId>");
  const rollout = await db().rollout.findUnique({
    where: { id },
    include: {
      task: { select: { name: true } },
      turns: { orderBy: { index: "asc" }, select: { id: true, index: true, author: true, tool: true, summary: true, isError: true, checkpoint: { select: { ref: true, bytesAdded: true } } } },
    },
  });
  if (!rollout) throw new UsageError(`rollout ${id} does not exist`);
  if (args.values.json) {
    process.stdout.write(`${JSON.stringify(rollout, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v))}\n`);
    return 0;
  }
  process.stdout.write(`${rollout.kind} rollout ${rollout.id} of ${rollout.task.name}: ${rollout.status}${rollout.stopReason ? ` (${rollout.stopReason})` : ""}\n`);
  process.stdout.write(`reward ${rollout.reward ?? "—"} · tests ${rollout.partialScore === null ? "—" : `${Math.round(rollout.partialScore * 100)}%`} · ${rollout.steps} steps · ${rollout.promptTokens + rollout.completionTokens} tokens\n`);
  for (const t of rollout.turns) {
    const kb = t.checkpoint ? `${(Number(t.checkpoint.bytesAdded) / 1024).toFixed(1)} KiB` : "no checkpoint";
    process.stdout.write(`  ${String(t.index).padStart(3)} ${t.author === "agent" ? "" : `[${t.author}] `}${t.isError ? "✗ " : ""}${t.summary}  (${kb})\n`);
  }
  if (rollout.verifierFeedback) process.stdout.write(`verifier:\n${rollout.verifierFeedback.replace(/^/gm, "  ")}\n`);
  if (rollout.error) process.stdout.write(`error: ${rollout.error}\n`);
  return 0;
}
