/**
 * The UI benchmark's data: one seed task with ~10,000 turns (many roots, hundreds of
 * branches, so the tree is bushy and most turns stay on screen as nodes) and one
 * fork turn whose observation is 1 MB. Labelled seed data like all synthetic rows.
 */
import { createDb } from "../server/db/client";
import { migrate } from "../server/db/migrate";
import { seedDevelopmentData } from "../server/dev/seed";

export interface UiBenchData {
  taskId: string;
  turns: number;
  /** a visible fork turn carrying the 1 MB observation */
  bigTurnId: string;
  /** its parent, opened first so the big turn is on screen */
  neighbourTurnId: string;
  bigObservationBytes: number;
}

export async function seedUiBench(databaseUrl: string, root: string): Promise<UiBenchData> {
  await migrate(databaseUrl, root);
  const db = createDb(databaseUrl);
  try {
    const { turns } = await seedDevelopmentData(db, { tasks: 1, rootsPerTask: 20, turnsPerRoot: 200, branchesPerTask: 880, seed: 11 });
    const task = await db.task.findFirstOrThrow({ where: { name: "seed-task-1" }, select: { id: true } });
    // A turn several branches leave from: it is drawn as its own node, never folded into a run.
    const forks = await db.rollout.groupBy({ by: ["branchedFromTurnId"], where: { taskId: task.id, kind: "branch" }, _count: { _all: true } });
    forks.sort((a, b) => b._count._all - a._count._all);
    const bigTurnId = forks[0]!.branchedFromTurnId!;
    const big = await db.turn.findUniqueOrThrow({ where: { id: bigTurnId }, select: { parentId: true } });
    const line = "drwxr-xr-x 2 agent agent 4096 Jan  1 00:00 some/long/path/to/a/file/in/the/workspace.py";
    const lines: string[] = [];
    let bytes = 0;
    for (let i = 0; bytes < 1024 * 1024; i++) {
      const l = `${String(i).padStart(6)} ${line}`;
      lines.push(l);
      bytes += l.length + 1;
    }
    const observation = lines.join("\n");
    await db.turnContent.update({ where: { turnId: bigTurnId }, data: { observation } });
    return { taskId: task.id, turns, bigTurnId, neighbourTurnId: big.parentId ?? bigTurnId, bigObservationBytes: Buffer.byteLength(observation) };
  } finally {
    await db.$disconnect();
  }
}
