import { db } from "../db/client";
import type { TaskId } from "../db/ids";
import { sandboxDriver } from "../runtime/services";
import { getTask } from "../tasks/task-store";
import { verifyCheckpoint } from "../verifier/run-verifier";
import type { CliArgs } from "./main";
import { UsageError } from "./usage-error";

export async function verifyCommand(args: CliArgs, rest: string[]): Promise<number> {
  const id = rest[0];
  if (!id) throw new UsageError("usage: npm run sprout -- verify <turnId>");
  const turn = await db().turn.findUnique({ where: { id }, select: { taskId: true, index: true, checkpoint: { select: { ref: true, backend: true, state: true } } } });
  if (!turn) throw new UsageError(`turn ${id} does not exist`);
  if (!turn.checkpoint || turn.checkpoint.state !== "live") throw new UsageError(`turn ${id} has no live checkpoint`);
  const driver = await sandboxDriver();
  if (driver.name !== turn.checkpoint.backend) throw new UsageError(`turn ${id} was checkpointed by the ${turn.checkpoint.backend} driver; set SPROUT_DRIVER=${turn.checkpoint.backend}`);
  const task = (await getTask(turn.taskId as TaskId))!;
  const result = await verifyCheckpoint(driver, turn.checkpoint.ref, task);
  await driver.close();
  if (args.values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else process.stdout.write(`turn ${turn.index}: reward ${result.reward}, ${result.passed ?? "?"}/${result.total ?? "?"} tests passed (${result.durationMs} ms)\n${result.feedback}\n`);
  return 0;
}
