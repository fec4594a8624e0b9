/**
 * Checkpoint benchmark: a synthetic turn loop on the local driver (and the docker driver when its
 * module exists and an engine answers). Each turn changes ~100 small files and one 256 KiB file,
 * then checkpoints. Prints progress lines, then one JSON object as the last line.
 *
 *   npx tsx bench/checkpoint.ts [--turns 200] [--docker-turns 20]
 */
import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { createLocalDriver } from "../server/sandbox/local/local-driver";
import type { Sandbox, SandboxDriver } from "../server/sandbox/types";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) ? v : dflt;
};
const TURNS = arg("turns", 200);
const DOCKER_TURNS = arg("docker-turns", 20);
const SMALL_FILES_PER_TURN = 100;
const SMALL_POOL = 400;
const BIG_BYTES = 256 * 1024;
const RESTORE_SAMPLES = 40;

const log = (s: string) => console.log(s);
const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0);
};
const round = (x: number) => Math.round(x * 1000) / 1000;

/** Deterministic PRNG so every run changes the same files. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One agent turn: ~100 small source-like files (0.5-3 KiB) and one 256 KiB file rewritten. */
async function turn(sb: Sandbox, rand: () => number, t: number): Promise<number> {
  let bytes = 0;
  const picked = new Set<number>();
  while (picked.size < SMALL_FILES_PER_TURN) picked.add(Math.floor(rand() * SMALL_POOL));
  await Promise.all(
    [...picked].map(async (i) => {
      const data = randomBytes(256 + Math.floor(rand() * 1280)).toString("base64");
      bytes += data.length;
      await sb.writeFile(`/bench/src/d${i % 8}/f${i}.txt`, data);
    }),
  );
  const big = randomBytes(BIG_BYTES);
  bytes += big.length;
  await sb.writeFile(`/bench/big-${t % 3}.bin`, big);
  return bytes;
}

interface Measured {
  checkpointMs: number[];
  restoreMs: number[];
  changed: number;
  stored: number;
  storedApparent: number;
}

async function runTurns(driver: SandboxDriver, sb: Sandbox, turns: number, label: string): Promise<Measured & { refs: string[] }> {
  const rand = rng(42);
  const m: Measured & { refs: string[] } = { checkpointMs: [], restoreMs: [], changed: 0, stored: 0, storedApparent: 0, refs: [] };
  for (let t = 0; t < turns; t++) {
    m.changed += await turn(sb, rand, t);
    const t0 = performance.now();
    const c = await sb.checkpoint();
    m.checkpointMs.push(performance.now() - t0);
    m.stored += c.bytesAdded;
    m.refs.push(c.ref);
    if ((t + 1) % 20 === 0) log(`${label}: turn ${t + 1}/${turns} checkpoint p50 ${pct(m.checkpointMs, 50)} ms`);
  }
  const every = Math.max(1, Math.floor(turns / RESTORE_SAMPLES));
  for (let i = every - 1; i < m.refs.length; i += every) {
    const ref = m.refs[i];
    if (!ref) continue;
    const t0 = performance.now();
    const r = await driver.create({ fromCheckpoint: ref });
    const res = await r.exec(["true"]);
    m.restoreMs.push(performance.now() - t0);
    if (res.exitCode !== 0) throw new Error(`restore of ${ref}: true exited ${res.exitCode}`);
    await r.destroy();
  }
  log(`${label}: restore-to-first-command p50 ${pct(m.restoreMs, 50)} ms over ${m.restoreMs.length} samples`);
  return m;
}

let fanoutSandboxBytes = 0;
let storedApparent = 0;

async function local() {
  const dataDir = path.resolve("data", "bench", `local-${process.pid}`);
  await mkdir(dataDir, { recursive: true });
  const driver = createLocalDriver({ dataDir });
  try {
    await driver.init();
    const sb = await driver.create({ base: { kind: "host" } });
    // Seed the pool so later turns modify files rather than only adding them.
    await Promise.all(Array.from({ length: SMALL_POOL }, (_, i) => sb.writeFile(`/bench/src/d${i % 8}/f${i}.txt`, "seed\n")));
    await sb.checkpoint();
    const m = await runTurns(driver, sb, TURNS, "local");
    const last = m.refs.at(-1);
    if (!last) throw new Error("no checkpoint");
    const t0 = performance.now();
    const fan = await Promise.all(Array.from({ length: 64 }, () => driver.create({ fromCheckpoint: last })));
    await Promise.all(fan.map((s) => s.exec(["true"])));
    const fanoutS = (performance.now() - t0) / 1000;
    // No lower layer is copied: the 64 sandboxes' own dirs (upper + work) stay a few KiB each.
    const du = spawnSync("du", ["-sb", path.join(dataDir, "sandboxes")], { encoding: "utf8" });
    fanoutSandboxBytes = Number(du.stdout.split("\t")[0]);
    log(`local: fan-out of 64 sandboxes from one checkpoint ${round(fanoutS)} s; their dirs hold ${fanoutSandboxBytes} bytes in all`);
    await Promise.all(fan.map((s) => s.destroy()));
    await sb.destroy();
    const ckpts = await driver.listCheckpoints();
    log(`local: ${ckpts.length} checkpoints stored`);
    // Allocated bytes count whole 4 KiB blocks per small file; apparent bytes are the content stored.
    for (const ref of m.refs) {
      const meta = JSON.parse(readFileSync(path.join(dataDir, "layers", ref, "meta.json"), "utf8")) as { apparentBytes: number };
      storedApparent += meta.apparentBytes;
    }
    return { m, fanoutS };
  } finally {
    await driver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function docker(): Promise<{ commitMs: number[]; restoreMs: number[] } | null> {
  const modPath = path.resolve(import.meta.dirname, "..", "server", "sandbox", "docker", "docker-driver.ts");
  if (!existsSync(modPath)) {
    console.error("docker: skipped: server/sandbox/docker/docker-driver.ts does not exist");
    return null;
  }
  let driver: SandboxDriver | null = null;
  try {
    const mod = (await import(modPath)) as { createDockerDriver?: (o: { scope?: string }) => SandboxDriver };
    if (!mod.createDockerDriver) throw new Error("module does not export createDockerDriver");
    driver = mod.createDockerDriver({ scope: `bench-${process.pid}` });
    await driver.init();
    const sb = await driver.create({});
    const m = await runTurns(driver, sb, DOCKER_TURNS, "docker");
    await sb.destroy();
    await driver.collect([]);
    return { commitMs: m.checkpointMs, restoreMs: m.restoreMs };
  } catch (e) {
    console.error(`docker: skipped: ${e instanceof Error ? e.message : String(e)}`);
    return null;
  } finally {
    await driver?.close().catch(() => {});
  }
}

const { m, fanoutS } = await local();
const d = await docker();
console.log(
  JSON.stringify({
    turns: TURNS,
    checkpoint_p50_ms: pct(m.checkpointMs, 50),
    checkpoint_p99_ms: pct(m.checkpointMs, 99),
    checkpoint_max_ms: pct(m.checkpointMs, 100),
    restore_p50_ms: pct(m.restoreMs, 50),
    restore_p99_ms: pct(m.restoreMs, 99),
    stored_over_changed: round(m.stored / m.changed),
    stored_apparent_over_changed: round(storedApparent / m.changed),
    bytes_changed_per_turn: Math.round(m.changed / TURNS),
    bytes_stored_per_turn: Math.round(m.stored / TURNS),
    fanout64_s: round(fanoutS),
    fanout64_sandbox_dir_bytes: fanoutSandboxBytes,
    docker_turns: d ? DOCKER_TURNS : 0,
    docker_commit_p50_ms: d ? pct(d.commitMs, 50) : null,
    docker_restore_p50_ms: d ? pct(d.restoreMs, 50) : null,
  }),
);
