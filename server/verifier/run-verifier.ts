import path from "node:path";
import { copyDirInto } from "../sandbox/copy-into";
import type { SandboxDriver } from "../sandbox/types";
import type { EnvironmentSpec, VerifierSpec } from "../tasks/task-spec";
import { parseVerifierRun, type VerifierResult } from "./parse-result";

const VERIFIER_OUTPUT_BYTES = 256 * 1024;

/**
 * Score a checkpoint: restore it into a throw-away sandbox (the rollout's own
 * sandbox is never touched), copy the hidden tests in, run the verifier command
 * with its timeout, and parse the result. Any checkpoint can be verified, not
 * only a rollout's last.
 */
export async function verifyCheckpoint(
  driver: SandboxDriver,
  checkpointRef: string,
  spec: { verifier: VerifierSpec; environment: EnvironmentSpec },
): Promise<VerifierResult> {
  const sandbox = await driver.create({ fromCheckpoint: checkpointRef, workdir: spec.environment.workdir, env: spec.environment.env, labels: { purpose: "verifier" } });
  try {
    if (spec.verifier.testsDir) await copyDirInto(sandbox, path.resolve(spec.verifier.testsDir), "/tests");
    await sandbox.exec(["mkdir", "-p", "/logs/verifier"], { timeoutMs: 10_000 });
    const run = await sandbox.exec(["/bin/bash", "-c", `${spec.verifier.command} 2>&1`], {
      cwd: spec.environment.workdir,
      timeoutMs: spec.verifier.timeoutMs,
      maxOutputBytes: VERIFIER_OUTPUT_BYTES,
    });
    const read = async (p: string) => {
      try {
        return (await sandbox.readFile(p)).toString("utf8");
      } catch {
        return null;
      }
    };
    return parseVerifierRun({
      output: run.stdout,
      exitCode: run.exitCode,
      timedOut: run.timedOut,
      durationMs: run.durationMs,
      rewardFile: await read("/logs/verifier/reward.txt"),
      junitXml: await read("/logs/verifier/junit.xml"),
    });
  } finally {
    await sandbox.destroy();
  }
}
