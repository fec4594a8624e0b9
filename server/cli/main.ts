/**
 * `npm run sprout -- <command>`: work with tasks and rollouts from a terminal.
 *   tasks                              list tasks (syncs the built-in suite)
 *   run --task <name> | --suite builtin [--k 4] [--policy demo|openai] [--base-url URL --model M] [--concurrency N] [--json]
 *   show <rolloutId> [--json]          a rollout's turns, checkpoints and verifier result
 *   verify <turnId> [--json]           run the task's verifier on the checkpoint of any turn
 *   compare --suite builtin --methods passk,sprout --k 4 [--json]   methods side by side
 *   export <experimentId> [--out f.jsonl]                         training groups
 *   import <dir> [--base …] [--check]                              a Harbor / Terminal-Bench 2 task
 */
import { parseArgs } from "node:util";
import { ConfigError, env } from "../config/env";
import { db } from "../db/client";
import { migrate } from "../db/migrate";
import { compareCommand } from "./compare-command";
import { importCommand } from "./import-command";
import { UsageError } from "./usage-error";
import { exportCommand } from "./export-command";
import { gcCommand } from "./gc-command";
import { runCommand } from "./run-command";
import { showCommand } from "./show-command";
import { tasksCommand } from "./tasks-command";
import { verifyCommand } from "./verify-command";

export type CliArgs = ReturnType<typeof parse>;

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      task: { type: "string", multiple: true },
      suite: { type: "string" },
      k: { type: "string" },
      policy: { type: "string" },
      "base-url": { type: "string" },
      model: { type: "string" },
      "api-key": { type: "string" },
      temperature: { type: "string" },
      concurrency: { type: "string" },
      "max-steps": { type: "string" },
      "mistake-rate": { type: "string" },
      seed: { type: "string" },
      name: { type: "string" },
      methods: { type: "string" },
      "sprout-roots": { type: "string" },
      rounds: { type: "string" },
      branches: { type: "string" },
      guidance: { type: "string" },
      "review-input": { type: "string" },
      strategy: { type: "string" },
      sweep: { type: "string" },
      report: { type: "string" },
      out: { type: "string" },
      check: { type: "boolean", default: false },
      base: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
}

const USAGE = `usage: npm run sprout -- <command>
  tasks                                   list tasks (the built-in suite is synced first)
  run --task <name> | --suite builtin     run k root rollouts per task; options: --k 4 --policy demo|openai
                                          --base-url URL --model NAME --api-key KEY --concurrency N --max-steps N --json
  show <rolloutId>                        a rollout's turns, checkpoints and verifier result (--json)
  verify <turnId>                         run the task's verifier on that turn's checkpoint (--json)
  compare --suite builtin --methods passk,sprout --k 4 [--json]
                                          run methods on the same tasks and seeds; last line: JSON keyed by method
                                          SPROUT options: --sprout-roots 1 --rounds 2 --branches 2 --guidance tool-call|text|none
                                          --review-input feedback|reward-only --strategy review|verifier-score|random|entropy
                                          --sweep 1x2,2x2,2x4 (rounds x branches) --report report.md
  export <experimentId> [--out groups.jsonl]  training groups (JSONL, one line per rollout)
  import <dir> [--base host|image:<ref>|rootfs:<path>] [--check] [--json]
                                          import a Harbor / Terminal-Bench 2 task; --check runs its solution and tests
  gc                                      remove stored checkpoints that no kept turn needs`;

async function main(): Promise<number> {
  let args: CliArgs;
  try {
    args = parse(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`sprout: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const [command, ...rest] = args.positionals;
  if (!command || args.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  await migrate(env().DATABASE_URL);
  switch (command) {
    case "tasks":
      return tasksCommand(args);
    case "run":
      return runCommand(args);
    case "show":
      return showCommand(args, rest);
    case "verify":
      return verifyCommand(args, rest);
    case "compare":
      return compareCommand(args);
    case "export":
      return exportCommand(args, rest);
    case "import":
      return importCommand(args, rest);
    case "gc":
      return gcCommand(args);
    default:
      process.stderr.write(`sprout: unknown command "${command}"\n${USAGE}\n`);
      return 2;
  }
}

main()
  .then(async (code) => {
    await db().$disconnect();
    process.exit(code);
  })
  .catch((error: unknown) => {
    const message = error instanceof ConfigError || error instanceof UsageError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`sprout: ${message}\n`);
    process.exit(1);
  });
