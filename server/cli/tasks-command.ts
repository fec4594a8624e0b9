import { listTasks } from "../tasks/task-store";
import { builtinPlans } from "../runtime/services";
import type { CliArgs } from "./main";

export async function tasksCommand(args: CliArgs): Promise<number> {
  await builtinPlans();
  const tasks = await listTasks();
  if (args.values.json) {
    process.stdout.write(`${JSON.stringify(tasks)}\n`);
    return 0;
  }
  const width = Math.max(...tasks.map((t) => t.name.length), 4);
  process.stdout.write(`${"name".padEnd(width)}  source    rollouts  resolved  title\n`);
  for (const t of tasks) {
    process.stdout.write(`${t.name.padEnd(width)}  ${t.source.padEnd(8)}  ${String(t.rollouts).padStart(8)}  ${String(t.resolved).padStart(8)}  ${t.title}\n`);
  }
  return 0;
}
