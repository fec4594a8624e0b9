// Engine overhead per turn: the time a turn takes beyond the model call and the tool itself
// (checkpointing, persisting the turn and its checkpoint, bookkeeping), with the local driver
// and 8 concurrent rollouts of the demo policy. Last line: one JSON object.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDb, setDb } from "../server/db/client";
import { migrate } from "../server/db/migrate";
import { createDemoPolicy } from "../server/policy/demo-policy";
import { createRollout } from "../server/rollout/rollout-store";
import { runRollout } from "../server/rollout/run-rollout";
import { createLocalDriver } from "../server/sandbox/local/local-driver";
import { syncBuiltinSuite } from "../server/tasks/sync-builtin-suite";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
};

/** CPU time (ms) of this process's sandbox helpers so far, their own work only (not the commands they fork). */
function helperCpu(): number {
  const tick = 1000 / 100; // USER_HZ
  let ms = 0;
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let stat = "";
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (comm !== "sprout-sandboxd" || Number(fields[1]) !== process.pid) continue;
    ms += (Number(fields[11]) + Number(fields[12])) * tick;
  }
  return ms;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sprout-bench-rollout-"));
const url = `file:${dir}/sprout.db`;
await migrate(url);
const client = createDb(url);
setDb(client);
const { tasks, plans } = await syncBuiltinSuite();
const driver = createLocalDriver({ dataDir: path.join(dir, "sandbox"), helpers: process.env.BENCH_HELPERS ? Number(process.env.BENCH_HELPERS) : undefined });
await driver.init();
const policy = createDemoPolicy({ plans, mistakeRate: 0 });

const overhead: number[] = [];
const checkpointMs: number[] = [];
let turns = 0;
let loopMs = 0;
const cpuStart = process.cpuUsage();
const helperCpuStart = helperCpu();
for (let round = 0; round < ROUNDS; round++) {
  const ids = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => createRollout({ taskId: tasks[i % tasks.length]!.id, kind: "root", seed: round * 100 + i })));
  const started = performance.now();
  const summaries = await Promise.all(ids.map((id) => runRollout(id, { driver, policy, verify: false })));
  loopMs += performance.now() - started;
  for (const s of summaries) {
    overhead.push(...s.overheadMs);
    turns += s.overheadMs.length;
  }
  const rows = await client.turn.findMany({ where: { rolloutId: { in: ids } }, select: { checkpointMs: true } });
  checkpointMs.push(...rows.map((r) => r.checkpointMs));
  process.stderr.write(`round ${round + 1}/${ROUNDS}: ${summaries.reduce((n, s) => n + s.overheadMs.length, 0)} turns, overhead p50 ${quantile(overhead, 0.5).toFixed(2)} ms\n`);
}
const cpu = process.cpuUsage(cpuStart);
const helperCpuMs = helperCpu() - helperCpuStart;
await driver.close();
await client.$disconnect();
fs.rmSync(dir, { recursive: true, force: true });

console.log(
  JSON.stringify({
    rollouts: ROUNDS * CONCURRENCY,
    concurrency: CONCURRENCY,
    turns,
    engine_overhead_p50_ms: Number(quantile(overhead, 0.5).toFixed(2)),
    engine_overhead_p99_ms: Number(quantile(overhead, 0.99).toFixed(2)),
    checkpoint_in_loop_p50_ms: quantile(checkpointMs, 0.5),
    turns_per_s: Number((turns / (loopMs / 1000)).toFixed(1)),
    // This process's CPU (engine, database, demo policy) per turn; the helper and the commands run elsewhere.
    node_cpu_ms_per_turn: Number(((cpu.user + cpu.system) / 1000 / turns).toFixed(2)),
    // The helpers' CPU per turn (checkpoints, mounts, dispatching commands), kernel time included.
    helper_cpu_ms_per_turn: Number((helperCpuMs / turns).toFixed(2)),
    load_average: Number(os.loadavg()[0]!.toFixed(2)),
  }),
);
