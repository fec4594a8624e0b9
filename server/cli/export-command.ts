import fs from "node:fs";
import type { ExperimentId, TaskId } from "../db/ids";
import { exportGroups } from "../sprout/export-groups";
import type { CliArgs } from "./main";
import { UsageError } from "./usage-error";

/** `export <experimentId> [--out file.jsonl]`: training groups as JSONL (stdout by default). */
export async function exportCommand(args: CliArgs, rest: string[]): Promise<number> {
  const id = rest[0];
  if (!id && !args.values.task) throw new UsageError("usage: npm run sprout -- export <experimentId> [--out groups.jsonl]");
  const out = args.values.out ? fs.createWriteStream(args.values.out) : process.stdout;
  let n = 0;
  for await (const line of exportGroups({ experimentId: id as ExperimentId | undefined, taskId: undefined as TaskId | undefined })) {
    out.write(`${JSON.stringify(line)}\n`);
    n += 1;
  }
  if (out !== process.stdout) {
    await new Promise<void>((resolve) => (out as fs.WriteStream).end(resolve));
    process.stderr.write(`wrote ${n} rollouts to ${args.values.out}\n`);
  }
  return 0;
}
