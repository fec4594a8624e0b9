/**
 * Proves an imported task end to end: its oracle solution, run in the task's start state, passes
 * the task's own tests, and (optionally) the start state alone does not. Either failing means the
 * import (or the task) is broken before any agent is blamed for it.
 */
import path from "node:path";
import { prepareStart } from "../../rollout/run-rollout";
import { copyDirInto } from "../../sandbox/copy-into";
import type { SandboxDriver } from "../../sandbox/types";
import type { Task } from "../task-store";
import type { VerifierResult } from "../../verifier/parse-result";
import { verifyCheckpoint } from "../../verifier/run-verifier";
import { harborTaskMetadata, HarborTaskError } from "./import-harbor-task";

/** The oracle gets the agent's time budget when the task sets one (as Harbor's oracle agent does), else this. */
const DEFAULT_SOLVE_TIMEOUT_MS = 10 * 60_000;
const TAIL_CHARS = 4000;

export interface CheckSolutionOptions {
  /** Also verify the unsolved start state, which should fail its tests. */
  verifyStart?: boolean;
  solveTimeoutMs?: number;
}

/** What running the task's solution did, and what the verifier made of the result. */
export interface SolutionCheck {
  /** the verifier on the state solve.sh left */
  result: VerifierResult;
  /** the verifier on the untouched start state, when asked for */
  startResult: VerifierResult | null;
  solve: { exitCode: number; timedOut: boolean; durationMs: number; outputTail: string };
  startCheckpointRef: string;
  solvedCheckpointRef: string;
}

/**
 * Build the task's start sandbox, copy solution/ to /solution, run `bash /solution/solve.sh`,
 * checkpoint the result, and verify that checkpoint in a throw-away sandbox (so the tests run
 * exactly as they do after a rollout). The checkpoints stay in the driver's store, unreferenced
 * by the database, for the collector.
 */
export async function checkSolution(task: Task, driver: SandboxDriver, options: CheckSolutionOptions = {}): Promise<SolutionCheck> {
  const metadata = harborTaskMetadata.safeParse(task.metadata);
  if (!metadata.success) throw new HarborTaskError(`task ${task.name} was not imported from a Harbor task directory`);
  const { solutionPath, solutionEnv, agentTimeoutMs } = metadata.data;
  if (!solutionPath) throw new HarborTaskError(`task ${task.name} has no solution/solve.sh to check`);

  const { sandbox, start } = await prepareStart(task, driver);
  const { run, solved } = await (async () => {
    try {
      await copyDirInto(sandbox, path.dirname(solutionPath), "/solution");
      // One stream, so errors show where they happened; the sandbox keeps the head of long output, we want the end.
      const run = await sandbox.exec(["/bin/bash", "-c", `set -o pipefail; bash /solution/solve.sh 2>&1 | tail -c ${TAIL_CHARS}`], {
        cwd: task.environment.workdir,
        env: { ...task.environment.env, ...solutionEnv },
        timeoutMs: options.solveTimeoutMs ?? agentTimeoutMs ?? DEFAULT_SOLVE_TIMEOUT_MS,
      });
      // The verifier should judge what an agent could have left, not find the answer key lying around.
      await sandbox.exec(["rm", "-rf", "/solution"], { timeoutMs: 30_000 });
      return { run, solved: await sandbox.checkpoint() };
    } finally {
      await sandbox.destroy();
    }
  })();

  const [result, startResult] = await Promise.all([
    verifyCheckpoint(driver, solved.ref, task),
    options.verifyStart ? verifyCheckpoint(driver, start.ref, task) : Promise.resolve(null),
  ]);
  const output = `${run.stdout}${run.stderr}`.trimEnd();
  return {
    result,
    startResult,
    solve: { exitCode: run.exitCode, timedOut: run.timedOut, durationMs: run.durationMs, outputTail: output.slice(-TAIL_CHARS) },
    startCheckpointRef: start.ref,
    solvedCheckpointRef: solved.ref,
  };
}
