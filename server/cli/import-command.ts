import { z } from "zod";
import { sandboxDriver } from "../runtime/services";
import { SandboxError } from "../sandbox/errors";
import type { SandboxBase } from "../sandbox/types";
import { checkSolution, type SolutionCheck } from "../tasks/import/check-solution";
import { HarborTaskError, importHarborTask } from "../tasks/import/import-harbor-task";
import type { CliArgs } from "./main";
import { UsageError } from "./usage-error";

const USAGE = "usage: npm run sprout -- import <task-dir> [--base host|image:<ref>|rootfs:<path>] [--check] [--json]";

/** --base: where the imported environment runs instead of its Dockerfile's FROM image. */
export function baseFromArg(value: string | undefined): SandboxBase | undefined {
  if (value === undefined) return undefined;
  if (value === "host") return { kind: "host" };
  const [kind, ...restParts] = value.split(":");
  const rest = restParts.join(":");
  if (kind === "image" && rest) return { kind: "image", ref: rest };
  if (kind === "rootfs" && rest) return { kind: "rootfs", path: rest };
  throw new UsageError(`--base must be host, image:<ref> or rootfs:<path>, not "${value}"`);
}

/** A check passes when the solution earns the full reward and the untouched start does not. */
function checkPassed(check: SolutionCheck): boolean {
  return check.result.reward >= 1 && (check.startResult === null || check.startResult.reward < 1);
}

/**
 * `import <dir>`: import a Harbor / Terminal-Bench 2 task directory; with --check, run its
 * solution in a sandbox of SPROUT_DRIVER and verify it (exit 1 unless it passes and the start fails).
 */
export async function importCommand(args: CliArgs, rest: string[]): Promise<number> {
  const dir = rest[0];
  if (!dir || rest.length > 1) throw new UsageError(USAGE);
  // Parsed rather than read off the type: the flags exist once main.ts declares them (--base string, --check boolean).
  const values = z.object({ base: z.string().optional(), check: z.boolean().optional(), json: z.boolean().optional() }).parse(args.values);
  const baseOverride = baseFromArg(values.base);

  const imported = await importHarborTask(dir, { baseOverride }).catch((error: unknown) => {
    // A bad task directory is the user's input, not a crash: one line, no stack.
    if (error instanceof HarborTaskError) return error;
    throw error;
  });
  if (imported instanceof HarborTaskError) {
    process.stderr.write(`sprout: cannot import ${dir}: ${imported.message}\n`);
    return 1;
  }
  const { task, warnings } = imported;
  const out = (line: string) => {
    if (!values.json) process.stdout.write(`${line}\n`);
  };
  const base = task.environment.base;
  out(`imported ${task.name} (${task.id}): ${task.title}`);
  out(`  base ${base.kind === "image" ? `image ${base.ref}` : base.kind === "rootfs" ? `rootfs ${base.path}` : "host"}, workdir ${task.environment.workdir}, ${task.environment.copies.length} copies, ${task.environment.setup.length} setup commands`);
  for (const w of warnings) out(`  warning: ${w}`);

  let check: SolutionCheck | null = null;
  let checkError: string | null = null;
  if (values.check) {
    const driver = await sandboxDriver();
    try {
      check = await checkSolution(task, driver, { verifyStart: true });
    } catch (error) {
      // The import stands; a task whose sandbox cannot start (an image the driver lacks, a RUN that needs the network)
      // is what --check exists to find, so it is reported like a failing solution rather than as a crash.
      if (!(error instanceof Error)) throw error;
      checkError = error instanceof SandboxError || error instanceof HarborTaskError ? error.message : `${error.name}: ${error.message}`;
      if (base.kind === "image" && driver.name === "local") checkError += ` (the local driver has no Docker images: pass --base host or --base rootfs:<path>)`;
    } finally {
      await driver.close();
    }
  }

  if (checkError !== null) out(`check: could not run the task: ${checkError}`);
  if (check) {
    const r = check.result;
    out(`solution: reward ${r.reward}, ${r.passed ?? "?"}/${r.total ?? "?"} tests passed (solve.sh exit ${check.solve.exitCode}${check.solve.timedOut ? ", timed out" : ""})`);
    if (check.startResult) out(`start state: reward ${check.startResult.reward}, ${check.startResult.passed ?? "?"}/${check.startResult.total ?? "?"} tests passed`);
    if (r.reward < 1) out(`the solution does not pass the task's tests:\n${r.feedback}\n--- solve.sh output (tail) ---\n${check.solve.outputTail}`);
    else if (!checkPassed(check)) out("the untouched start state already passes the task's tests: they check nothing");
  }
  if (values.json) {
    const summary = { id: task.id, name: task.name, title: task.title, environment: task.environment, verifier: task.verifier };
    process.stdout.write(`${JSON.stringify({ task: summary, warnings, check, checkError })}\n`);
  }
  return checkError !== null || (check !== null && !checkPassed(check)) ? 1 : 0;
}
