import path from "node:path";
import type { SproutTaskFile } from "./builtin/schema";
import { loadBuiltinSuite } from "./builtin/load-builtin-suite";
import { upsertTask, type Task } from "./task-store";

/** The built-in suite in the database (created or updated by name), and the demo policy's plans for it. */
export async function syncBuiltinSuite(): Promise<{ tasks: Task[]; plans: Map<string, SproutTaskFile> }> {
  const suite = await loadBuiltinSuite();
  const plans = new Map<string, SproutTaskFile>();
  const tasks: Task[] = [];
  const rel = (p: string) => path.relative(process.cwd(), p);
  for (const t of suite) {
    plans.set(t.name, { reference: t.referenceSteps, mistakes: t.mistakes });
    tasks.push(
      await upsertTask({
        name: t.name,
        title: t.title,
        instruction: t.instruction,
        source: "builtin",
        environment: { base: { kind: "host" }, setup: [], workdir: "/workspace", workspaceDir: rel(t.workspaceDir) },
        verifier: { command: t.verifier.command, timeoutMs: t.verifier.timeoutMs, format: "unittest", testsDir: rel(t.testsDir) },
        metadata: { difficulty: t.difficulty, category: t.category, tags: t.tags, referenceSteps: t.referenceSteps.length, mistakes: t.mistakes.length },
      }),
    );
  }
  return { tasks, plans };
}
