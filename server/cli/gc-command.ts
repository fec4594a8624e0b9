import { collectCheckpoints } from "../checkpoint/checkpoint-store";
import { sandboxDriver } from "../runtime/services";
import type { CliArgs } from "./main";

/** `gc`: remove the stored data of checkpoints no kept turn or rollout start needs (their lineage rows stay, marked collected). */
export async function gcCommand(args: CliArgs): Promise<number> {
  const driver = await sandboxDriver();
  const result = await collectCheckpoints(driver);
  await driver.close();
  if (args.values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else process.stdout.write(`collected ${result.removed} checkpoint(s) of the ${driver.name} driver, freeing ${(result.bytesFreed / 1024 / 1024).toFixed(1)} MiB\n`);
  return 0;
}
