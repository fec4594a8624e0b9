import fs from "node:fs";
import { z } from "zod";
import { env } from "../config/env";
import { policyFor, sandboxDriver } from "../runtime/services";
import { compareMethods, type MethodResult, type MethodRun } from "../sprout/compare-methods";
import type { MethodConfig } from "../sprout/run-experiment";
import { progressReporter } from "./progress";
import { policyFromArgs, tasksFromArgs } from "./run-command";
import type { CliArgs } from "./main";
import { UsageError } from "./usage-error";

const METHODS = ["pass1", "passk", "sprout"] as const;
type Method = (typeof METHODS)[number];


const pct = (x: number) => `${(x * 100).toFixed(1)}`;

/**
 * `compare`: run several methods over the same tasks with the same policy and
 * seeds, and print one JSON object keyed by method (its last line). With
 * --sweep RxB,… it also runs SPROUT at each rounds × branches setting (Fig. 4);
 * --report FILE writes the markdown table and the sweep.
 */
export async function compareCommand(args: CliArgs): Promise<number> {
  const v = args.values;
  const int = (name: string, fallback: number) => z.coerce.number().int().min(0).parse(v[name as keyof typeof v] ?? fallback);
  const k = int("k", 4);
  const methods = (v.methods ?? "passk,sprout").split(",").map((m) => m.trim());
  for (const m of methods) if (!METHODS.includes(m as Method)) throw new UsageError(`unknown method "${m}" (methods: ${METHODS.join(", ")})`);
  const sproutBase: Partial<MethodConfig> = {
    k: int("sprout-roots", 1),
    rounds: int("rounds", 2),
    branches: int("branches", 2),
    guidance: z.enum(["tool-call", "text", "none"]).parse(v.guidance ?? "tool-call"),
    reviewInput: z.enum(["feedback", "reward-only"]).parse(v["review-input"] ?? "feedback"),
    strategy: z.enum(["review", "verifier-score", "random", "entropy"]).parse(v.strategy ?? "review"),
  };
  const columns: MethodRun[] = methods.map((m) => ({
    label: m,
    method: m as Method,
    config: m === "pass1" ? { k: 1 } : m === "passk" ? { k } : sproutBase,
  }));
  const sweep = (v.sweep ?? "").split(",").filter(Boolean).map((s) => {
    const match = /^(\d+)x(\d+)$/.exec(s.trim());
    if (!match) throw new UsageError(`--sweep takes rounds×branches like 1x2,2x2,2x4, not "${s}"`);
    return { label: `sprout ${match[1]}x${match[2]}`, method: "sprout" as const, config: { ...sproutBase, rounds: Number(match[1]), branches: Number(match[2]) } };
  });

  const policyConfig = policyFromArgs(args);
  const tasks = await tasksFromArgs(args);
  const [driver, policy] = await Promise.all([sandboxDriver(), policyFor(policyConfig)]);
  const concurrency = int("concurrency", env().SPROUT_CONCURRENCY);
  const seed = int("seed", 1);
  const bars = new Map<string, ReturnType<typeof progressReporter>>();
  const results = await compareMethods([...columns, ...sweep], {
    taskIds: tasks.map((t) => t.id),
    policy,
    policyConfig,
    driver,
    concurrency,
    seed,
    onProgress: (label, p) => {
      let bar = bars.get(label);
      if (!bar) {
        for (const b of bars.values()) b.end();
        bar = progressReporter(label.padEnd(12));
        bars.set(label, bar);
      }
      bar.update(p.finished, p.total, `· ${p.resolved} resolved`);
    },
  });
  for (const b of bars.values()) b.end();
  await driver.close();

  if (v.report) fs.writeFileSync(v.report, markdownReport(results, columns.map((c) => c.label), sweep.map((s) => s.label), { policy: policy.name, tasks: tasks.length, k }));
  if (!v.json) {
    process.stdout.write(`${"method".padEnd(14)} resolve  recovery    steps      tokens  branches\n`);
    for (const [label, r] of Object.entries(results)) {
      process.stdout.write(`${label.padEnd(14)} ${pct(r.resolve_rate).padStart(6)}%  ${pct(r.recovery_rate).padStart(7)}%  ${String(r.steps).padStart(7)}  ${String(r.tokens).padStart(10)}  ${String(r.branches).padStart(8)}\n`);
    }
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
  return 0;
}

export function markdownReport(results: Record<string, MethodResult>, main: string[], sweep: string[], meta: { policy: string; tasks: number; k: number }): string {
  const lines = [
    `# Method comparison`,
    ``,
    `Policy \`${meta.policy}\`, ${meta.tasks} tasks, pass@k with k = ${meta.k}.${meta.policy === "demo" ? " The demo policy is a scripted stand-in: these numbers show the machinery on synthetic tasks, not a model's ability." : ""}`,
    ``,
    `| method | resolve rate (%) | recovery (%) | steps | tokens | branches | steps saved by resuming |`,
    `|---|---:|---:|---:|---:|---:|---:|`,
    ...main.map((m) => {
      const r = results[m]!;
      return `| ${m} | ${pct(r.resolve_rate)} | ${pct(r.recovery_rate)} | ${r.steps} | ${r.tokens} | ${r.branches} | ${r.saved_steps} |`;
    }),
  ];
  if (sweep.length > 0) {
    lines.push(``, `## Branch scaling (review rounds × branches per round)`, ``, `| setting | resolve rate (%) | steps | tokens | branches |`, `|---|---:|---:|---:|---:|`);
    for (const s of sweep) {
      const r = results[s]!;
      lines.push(`| ${s.replace("sprout ", "")} | ${pct(r.resolve_rate)} | ${r.steps} | ${r.tokens} | ${r.branches} |`);
    }
  }
  return `${lines.join("\n")}\n`;
}
