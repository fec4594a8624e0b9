// SPROUT against pass@1 and pass@k on the built-in suite with the demo policy, over several seeds,
// plus a rounds × branches sweep (Fig. 4), in a fresh database with the local driver.
// Target: SPROUT reaches at least pass@4's resolve rate with ≤ 60% of its executed steps.
// The demo policy is a scripted stand-in: this measures the machinery, not a model.
// Last line: one JSON object. BENCH_SEEDS=1,2,3,4,5 chooses the seeds; the ablations run on the first
// BENCH_ABLATION_SEEDS (default 3) of them, the sweep on the first. Writes docs/sprout-report.md.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { markdownReport } from "../server/cli/compare-command";
import { createDb, setDb } from "../server/db/client";
import { migrate } from "../server/db/migrate";
import { createDemoPolicy } from "../server/policy/demo-policy";
import { createLocalDriver } from "../server/sandbox/local/local-driver";
import { compareMethods, type MethodResult, type MethodRun } from "../server/sprout/compare-methods";
import { syncBuiltinSuite } from "../server/tasks/sync-builtin-suite";

const seeds = (process.env.BENCH_SEEDS ?? "1,2,3,4,5").split(",").map(Number);
const ablationSeeds = Number(process.env.BENCH_ABLATION_SEEDS ?? 3);
const K = 4;
// One root, then up to two review rounds of two branches each on the tasks whose attempts all failed.
const sprout = { k: 1, rounds: 2, branches: 2 };
const main: MethodRun[] = [
  { label: "pass1", method: "pass1", config: { k: 1 } },
  { label: "passk", method: "passk", config: { k: K } },
  { label: "sprout", method: "sprout", config: sprout },
];
const sweep: MethodRun[] = ["1x2", "1x4", "2x2", "2x3", "3x3"].map((s) => {
  const [rounds, branches] = s.split("x").map(Number);
  return { label: `sprout ${s}`, method: "sprout", config: { k: 1, rounds, branches } };
});
const ablations: MethodRun[] = [
  { label: "sprout text hint", method: "sprout", config: { ...sprout, guidance: "text" } },
  { label: "sprout no hint", method: "sprout", config: { ...sprout, guidance: "none" } },
  { label: "sprout reward-only", method: "sprout", config: { ...sprout, reviewInput: "reward-only" } },
  { label: "sprout verifier-score", method: "sprout", config: { ...sprout, strategy: "verifier-score", guidance: "none" } },
];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sprout-bench-sprout-"));
const url = `file:${dir}/sprout.db`;
await migrate(url);
const client = createDb(url);
setDb(client);
const { tasks, plans } = await syncBuiltinSuite();
const driver = createLocalDriver({ dataDir: path.join(dir, "sandbox") });
await driver.init();
const mistakeRate = Number(process.env.BENCH_MISTAKE_RATE ?? 0.25);
const policyConfig = { kind: "demo" as const, mistakeRate };
const policy = createDemoPolicy({ plans, mistakeRate });

const perSeed: Record<string, MethodResult>[] = [];
let firstSeed: Record<string, MethodResult> = {};
for (const [i, seed] of seeds.entries()) {
  const runs = [...main, ...(i === 0 ? sweep : []), ...(i < ablationSeeds ? ablations : [])];
  const results = await compareMethods(runs, {
    taskIds: tasks.map((t) => t.id),
    policy,
    policyConfig,
    driver,
    concurrency: 4,
    seed,
    namePrefix: `bench seed ${seed}`,
  });
  perSeed.push(results);
  for (const [label, r] of Object.entries(results)) {
    process.stderr.write(`seed ${seed} ${label.padEnd(22)} resolve ${(r.resolve_rate * 100).toFixed(1).padStart(5)}%  recovery ${(r.recovery_rate * 100).toFixed(1).padStart(5)}%  steps ${String(r.steps).padStart(4)}  tokens ${String(r.tokens).padStart(8)}  branches ${r.branches}\n`);
  }
  if (i === 0) firstSeed = results;
}
await driver.close();
await client.$disconnect();
fs.rmSync(dir, { recursive: true, force: true });

const sum = (label: string, key: "steps" | "tokens" | "resolved_tasks" | "tasks" | "branches") => perSeed.reduce((n, r) => n + (r[label]?.[key] ?? 0), 0);
const rate = (label: string) => sum(label, "resolved_tasks") / sum(label, "tasks");
const stepRatio = sum("sprout", "steps") / sum("passk", "steps");

// The report: every seed, then the first seed's full table (with the sweep) in the compare command's format.
const pct = (x: number) => (x * 100).toFixed(1);
const seedsWith = (label: string) => perSeed.filter((r) => r[label]).length;
const across = [
  `## Across seeds`,
  ``,
  `Seeds ${seeds.join(", ")}; the ablations on the first ${Math.min(ablationSeeds, seeds.length)}. SPROUT: ${sprout.k} root, ${sprout.rounds} review rounds × ${sprout.branches} branches. Resolve rate per seed, then over all seeds; steps and tokens summed over the seeds each method ran on.`,
  ``,
  `| method | ${seeds.map((s) => `seed ${s}`).join(" | ")} | resolve rate (%) | steps | steps / pass@${K} steps | tokens |`,
  `|---|${seeds.map(() => "---:|").join("")}---:|---:|---:|---:|`,
  ...[...main, ...ablations].map(({ label }) => {
    const cells = perSeed.map((r) => (r[label] ? pct(r[label].resolve_rate) : "–"));
    const passkSteps = perSeed.filter((r) => r[label]).reduce((n, r) => n + r.passk!.steps, 0);
    return `| ${label} | ${cells.join(" | ")} | ${pct(rate(label))} | ${sum(label, "steps")} | ${seedsWith(label) ? pct(sum(label, "steps") / passkSteps) : "–"}% | ${sum(label, "tokens")} |`;
  }),
  ``,
  `Target: SPROUT at least pass@${K}'s resolve rate with ≤ 60% of its executed steps — ${rate("sprout") >= rate("passk") && stepRatio <= 0.6 ? "met" : "**not met**"} (${pct(rate("sprout"))}% vs ${pct(rate("passk"))}%, ${pct(stepRatio)}% of the steps).`,
  ``,
  `## Seed ${seeds[0]}`,
].join("\n");
const reportPath = path.join(import.meta.dirname, "..", "docs", "sprout-report.md");
const single = markdownReport(firstSeed, [...main, ...ablations].map((r) => r.label), sweep.map((r) => r.label), { policy: "demo", tasks: tasks.length, k: K });
// The compare command's report starts with its title and the policy note; the seeds go right after them.
const [title, , note, ...rest] = single.split("\n");
fs.writeFileSync(reportPath, [title, "", note, "", across, ...rest].join("\n"));
process.stderr.write(`wrote ${path.relative(process.cwd(), reportPath)}\n`);
console.log(
  JSON.stringify({
    seeds,
    tasks: tasks.length,
    k: K,
    mistake_rate: mistakeRate,
    pass1_resolve_rate: Number(rate("pass1").toFixed(4)),
    passk_resolve_rate: Number(rate("passk").toFixed(4)),
    sprout_resolve_rate: Number(rate("sprout").toFixed(4)),
    passk_steps: sum("passk", "steps"),
    sprout_steps: sum("sprout", "steps"),
    sprout_over_passk_steps: Number(stepRatio.toFixed(4)),
    passk_tokens: sum("passk", "tokens"),
    sprout_tokens: sum("sprout", "tokens"),
    sprout_branches: sum("sprout", "branches"),
    target_met: rate("sprout") >= rate("passk") && stepRatio <= 0.6,
  }),
);
