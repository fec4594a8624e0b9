/**
 * The local driver against real overlayfs, namespaces and cgroups. Needs root (as CI and the
 * project's machines run) and the helper built by `node scripts/build-native.mjs`.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile, mkdir } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CheckpointNotFoundError, ResourceExhaustedError, SandboxGoneError } from "../../server/sandbox/errors";
import { createLocalDriver, type LocalDriverOptions } from "../../server/sandbox/local/local-driver";
import type { Sandbox, SandboxDriver } from "../../server/sandbox/types";

let dataDir = "";
let driver: SandboxDriver;

async function open(extra: Partial<LocalDriverOptions> = {}): Promise<SandboxDriver> {
  const d = createLocalDriver({ dataDir, ...extra });
  await d.init();
  return d;
}

beforeEach(async () => {
  // Labelled so a leftover is recognisable; under /tmp, which sandboxes never see.
  dataDir = await mkdtemp(path.join(os.tmpdir(), "sprout-local-test-"));
  driver = await open();
});

afterEach(async () => {
  await driver.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function sh(sb: Sandbox, script: string): Promise<string> {
  const r = await sb.exec(script, { timeoutMs: 30_000 });
  if (r.exitCode !== 0) throw new Error(`exit ${r.exitCode}: ${r.stderr}`);
  return r.stdout;
}

/** Everything observable about a tree: type, mode, owner, size, link target, content hash, hard-link groups. */
async function manifest(sb: Sandbox, root: string): Promise<string> {
  const listing = await sh(
    sb,
    `cd ${root} && find . -mindepth 1 -printf '%p %y %m %U %G %l|%i\\n' | sort && find . -type f -print0 | sort -z | xargs -0 -r sha256sum`,
  );
  const lines = listing.trim().split("\n");
  const byInode = new Map<string, string[]>();
  const out: string[] = [];
  for (const l of lines) {
    const bar = l.lastIndexOf("|");
    if (bar < 0 || !l.startsWith("./")) {
      out.push(l);
      continue;
    }
    const [p, type] = l.split(" ");
    out.push(l.slice(0, bar));
    if (type === "f" && p) {
      const ino = l.slice(bar + 1);
      byInode.set(ino, [...(byInode.get(ino) ?? []), p]);
    }
  }
  const groups = [...byInode.values()].filter((g) => g.length > 1).map((g) => g.sort().join("="));
  return [...out, ...groups.sort()].join("\n");
}

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

/** A random shell step over a small tree: creations, edits, modes, owners, links, deletions, renames. */
function randomOps(rand: () => number, n: number): string {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const names = ["a", "b", "c", "d/e", "d/f", "g/h/i", "g/j"];
  const ops: string[] = [];
  for (let i = 0; i < n; i++) {
    const p = `/w/${pick(names)}`;
    const q = `/w/${pick(names)}`;
    switch (Math.floor(rand() * 10)) {
      case 0:
      case 1:
        ops.push(`mkdir -p $(dirname ${p}) && rm -rf ${p} && head -c ${Math.floor(rand() * 5000)} /dev/urandom > ${p}`);
        break;
      case 2:
        ops.push(`[ -f ${p} ] && [ ! -L ${p} ] && echo more$RANDOM >> ${p} || true`);
        break;
      case 3:
        ops.push(`[ -e ${p} ] && [ ! -L ${p} ] && chmod ${pick(["600", "644", "755", "4755", "1777"])} ${p} || true`);
        break;
      case 4:
        ops.push(`[ -e ${p} ] && chown -h ${pick(["0:0", "1000:1000", "12:34"])} ${p} || true`);
        break;
      case 5:
        ops.push(`mkdir -p $(dirname ${p}) && rm -rf ${p} && ln -s ${pick(["../a", "/etc/hostname", "missing"])} ${p}`);
        break;
      case 6:
        ops.push(`[ -f ${q} ] && [ ! -L ${q} ] && mkdir -p $(dirname ${p}) && rm -rf ${p} && ln ${q} ${p} || true`);
        break;
      case 7:
        ops.push(`rm -rf ${p}`);
        break;
      case 8:
        ops.push(`rm -rf /w/${pick(["d", "g", "g/h"])}`);
        break;
      default:
        ops.push(`[ -e ${p} ] && mkdir -p $(dirname ${q}) && rm -rf ${q} && mv ${p} ${q} 2>/dev/null || true`);
    }
  }
  return ops.join("\n");
}

describe("local driver", () => {
  it("restores exactly what was checkpointed (random operations, fixed seed)", async () => {
    const rand = rng(1234);
    const sb = await driver.create({ base: { kind: "host" } });
    await sh(sb, "mkdir -p /w");
    const snaps: { ref: string; m: string }[] = [];
    for (let step = 0; step < 12; step++) {
      await sh(sb, randomOps(rand, 15));
      const m = await manifest(sb, "/w");
      const c = await sb.checkpoint();
      snaps.push({ ref: c.ref, m });
      // The live sandbox continues on top of the checkpoint unchanged.
      expect(await manifest(sb, "/w")).toBe(m);
    }
    expect(snaps.some((s) => s.m.includes(" l "))).toBe(true);
    expect(snaps.some((s) => s.m.includes("="))).toBe(true);
    for (const s of snaps) {
      const r = await driver.create({ fromCheckpoint: s.ref });
      expect(await manifest(r, "/w")).toBe(s.m);
      await r.destroy();
    }
  });

  it("keeps two branches from one checkpoint apart", async () => {
    const sb = await driver.create({});
    await sb.writeFile("/w/shared", "base");
    const c = await sb.checkpoint();
    const [a, b] = await Promise.all([driver.create({ fromCheckpoint: c.ref }), driver.create({ fromCheckpoint: c.ref })]);
    if (!a || !b) throw new Error("create");
    await a.writeFile("/w/shared", "from a");
    await a.writeFile("/w/only-a", "a");
    await sh(b, "rm /w/shared && echo b > /w/only-b");
    expect((await a.readFile("/w/shared")).toString()).toBe("from a");
    expect(await sh(a, "ls /w")).toBe("only-a\nshared\n");
    expect(await sh(b, "ls /w")).toBe("only-b\n");
    const [ca, cb] = [await a.checkpoint(), await b.checkpoint()];
    expect((await driver.readCheckpointFile(ca.ref, "/w/shared"))?.toString()).toBe("from a");
    expect(await driver.readCheckpointFile(cb.ref, "/w/shared")).toBeNull();
    expect((await driver.readCheckpointFile(c.ref, "/w/shared"))?.toString()).toBe("base");
    const changes = await driver.changes(cb.ref, ca.ref);
    expect(changes.map((x) => `${x.kind} ${x.path}`).sort()).toEqual(["added /w/only-b", "deleted /w/only-a", "deleted /w/shared"]);
    expect(await driver.changes(ca.ref, c.ref)).toEqual([
      { path: "/w/only-a", kind: "added", type: "file", size: 1 },
      { path: "/w/shared", kind: "modified", type: "file", size: 6 },
    ]);
    expect((await driver.changes(c.ref, null)).map((x) => x.path)).toContain("/w/shared");
  });

  it("collects only what no kept checkpoint or live sandbox needs", async () => {
    const sb = await driver.create({});
    await sb.writeFile("/f", "1");
    const c1 = await sb.checkpoint();
    await sb.writeFile("/f", "2");
    const c2 = await sb.checkpoint();
    await sb.writeFile("/f", "3");
    const c3 = await sb.checkpoint();
    const br = await driver.create({ fromCheckpoint: c2.ref });
    await br.writeFile("/g", "x");
    const d3 = await br.checkpoint();
    await br.destroy();
    await sb.destroy();

    const r = await driver.collect([c3.ref]);
    expect(r.removed).toEqual([d3.ref]);
    for (const [ref, v] of [[c1.ref, "1"], [c2.ref, "2"], [c3.ref, "3"]] as const) {
      const s = await driver.create({ fromCheckpoint: ref });
      expect((await s.readFile("/f")).toString()).toBe(v);
      await s.destroy();
    }
    await expect(driver.create({ fromCheckpoint: d3.ref })).rejects.toBeInstanceOf(CheckpointNotFoundError);

    // A live sandbox keeps the chain under it even when nothing is kept.
    const live = await driver.create({ fromCheckpoint: c2.ref });
    const r2 = await driver.collect([]);
    expect(r2.removed).toEqual([c3.ref]);
    expect((await live.readFile("/f")).toString()).toBe("2");
    expect((await driver.listCheckpoints()).map((c) => c.ref).sort()).toEqual([c1.ref, c2.ref].sort());
  });

  it("runs commands with stdin, cwd, env, exit codes and output caps", async () => {
    const sb = await driver.create({ workdir: "/proj", env: { A: "1" } });
    const r = await sb.exec(["sh", "-c", 'read x; echo "$x $A $B $(pwd)"; echo err >&2; exit 3'], {
      stdin: "hi\n",
      env: { B: "2" },
    });
    expect(r).toMatchObject({ exitCode: 3, stdout: "hi 1 2 /proj\n", stderr: "err\n", timedOut: false });
    const big = await sb.exec("head -c 100000 /dev/zero | tr '\\0' x", { maxOutputBytes: 1000 });
    expect(big.stdout.length).toBe(1000);
    expect(big.stdoutTruncated).toBe(true);
    expect((await sb.exec("pwd", { cwd: "/tmp" })).stdout).toBe("/tmp\n");
    expect((await sb.exec(["no-such-command"])).exitCode).toBe(127);
    await sb.writeFile("sub/x.sh", "#!/bin/sh\necho ran\n", { mode: 0o755 });
    expect((await sb.exec("./sub/x.sh")).stdout).toBe("ran\n");
    expect((await sb.readFile("/proj/sub/x.sh")).toString()).toContain("echo ran");
  });

  it("hides the host's private paths and has no network", async () => {
    await mkdir(path.join(dataDir, "secret"), { recursive: true });
    const sb = await driver.create({ base: { kind: "host", hiddenPaths: ["/opt"] } });
    const out = await sh(sb, `ls -A /root /home /work /tmp /opt; ls -A ${dataDir} 2>/dev/null; echo end`);
    expect(out).toBe(`/home:\n\n/opt:\n\n/root:\n\n/tmp:\n\n/work:\nend\n`);
    // The work tree is hidden wherever it lives (under /work here, elsewhere in CI): no file of it shows.
    const tree = await sh(sb, `ls -A ${process.cwd()} 2>/dev/null | wc -l; test -e ${process.cwd()}/package.json && echo visible || echo hidden`);
    expect(tree).toBe("0\nhidden\n");
    expect(await sh(sb, "test -x /bin/sh && cat /etc/debian_version")).not.toBe("");
    const net = await sh(sb, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
    expect(net).toBe("lo\n");
    const py = await sb.exec([
      "python3",
      "-c",
      "import socket\ntry:\n socket.create_connection(('1.1.1.1', 53), timeout=2)\n print('connected')\nexcept OSError as e:\n print('blocked')",
    ]);
    expect(py.stdout).toBe("blocked\n");
  });

  it("kills a command's whole process tree on timeout", async () => {
    const sb = await driver.create({});
    const r = await sb.exec("sleep 1000 & sleep 1001 & sh -c 'sleep 1002' & wait", { timeoutMs: 300 });
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBe(-1);
    expect(await sh(sb, "ps -eo comm= | grep -c sleep || true")).toBe("0\n");
  });

  it("bounds memory and processes", async () => {
    const sb = await driver.create({ limits: { memoryBytes: 64 * 1024 ** 2, pids: 40 } });
    const mem = await sb.exec(["python3", "-c", "a = bytearray(512 * 1024 * 1024); print(len(a))"], { timeoutMs: 20_000 });
    expect(mem.exitCode).not.toBe(0);
    expect(mem.stdout).toBe("");
    const bomb = await sb.exec("for i in $(seq 200); do sleep 30 & done; wait", { timeoutMs: 2000 });
    expect(bomb.stderr).toMatch(/process limit reached|fork|Resource temporarily unavailable/);
    // The sandbox is usable again once the tree is gone.
    expect((await sb.exec("echo ok")).stdout).toBe("ok\n");
  });

  it("stops a sandbox that writes too much, without harming checkpoints", async () => {
    await driver.close();
    driver = await open({ maxDiskBytesPerSandbox: 32 * 1024 ** 2 });
    const sb = await driver.create({});
    await sb.writeFile("/keep", "safe");
    const c = await sb.checkpoint();
    await expect(
      sb.exec("i=0; while true; do head -c 4000000 /dev/zero > /f$i || exit 1; i=$((i+1)); done", { timeoutMs: 30_000 }),
    ).rejects.toBeInstanceOf(ResourceExhaustedError);
    await expect(sb.exec("true")).rejects.toBeInstanceOf(SandboxGoneError);
    expect(await readdir(path.join(dataDir, "sandboxes"))).toEqual([]);
    const r = await driver.create({ fromCheckpoint: c.ref });
    expect((await r.readFile("/keep")).toString()).toBe("safe");
  });

  it("restores without the processes that ran before", async () => {
    const sb = await driver.create({});
    await sh(sb, "setsid sleep 1000 > /dev/null 2>&1 < /dev/null &");
    expect(await sh(sb, "ps -eo comm= | grep -c sleep")).toBe("1\n");
    const c = await sb.checkpoint();
    const r = await driver.create({ fromCheckpoint: c.ref });
    expect(await sh(r, "ps -eo comm= | grep -c sleep || true")).toBe("0\n");
    // Only the sandbox's init and ps itself.
    expect((await r.exec(["ps", "-eo", "pid="])).stdout.trim().split("\n")).toHaveLength(2);
    // The checkpointed sandbox itself continues like its restore: background jobs are stopped.
    expect(await sh(sb, "ps -eo comm= | grep -c sleep || true")).toBe("0\n");
  });

  it("checkpoints a turn that changed nothing as an empty layer, and the sandbox goes on", async () => {
    const sb = await driver.create({});
    await sb.writeFile("/work/a", "first");
    const c1 = await sb.checkpoint();
    expect(await sh(sb, "cat /work/a; ls /work")).toBe("firsta\n");
    const c2 = await sb.checkpoint();
    expect(c2).toMatchObject({ parentRef: c1.ref, bytesAdded: 0 });
    await sh(sb, "echo second > /work/b");
    const c3 = await sb.checkpoint();
    expect(c3.parentRef).toBe(c2.ref);
    expect(c3.bytesAdded).toBeGreaterThan(0);
    const at2 = await driver.create({ fromCheckpoint: c2.ref });
    expect(await sh(at2, "ls /work")).toBe("a\n");
    const at3 = await driver.create({ fromCheckpoint: c3.ref });
    expect(await sh(at3, "cat /work/a /work/b")).toBe("firstsecond\n");
    expect(await driver.changes(c2.ref, c1.ref)).toEqual([]);
  });

  it("starts a checkpoint sent behind a command or a write when it ends, and only a later operation makes it stale", async () => {
    const sb = await driver.create({});
    // The command is still running when the checkpoint reaches the helper: it must wait for the end.
    const r1 = await sb.exec("sleep 0.3; echo one > /work/a; echo done", { checkpointAfter: true, timeoutMs: 30_000 });
    expect(r1.stdout).toBe("done\n");
    const c1 = await sb.checkpoint();
    expect(c1.durationMs).toBeLessThan(250); // counted from the command's result, not from when it was sent
    // A background job the command left is ended by its checkpoint, as with checkpoint() after the result.
    await sb.exec("setsid sleep 1000 > /dev/null 2>&1 < /dev/null & echo two > /work/b", { checkpointAfter: true });
    const c2 = await sb.checkpoint();
    expect(c2.parentRef).toBe(c1.ref);
    expect(await sh(sb, "ps -eo comm= | grep -c sleep || true")).toBe("0\n");
    // An operation after the command: the early checkpoint no longer is the state, a new one is made.
    await sb.exec("echo three > /work/c", { checkpointAfter: true });
    await sb.writeFile("/work/d", "four");
    const c4 = await sb.checkpoint();
    // A command that cannot start still gets its checkpoint.
    await expect(sb.exec("true", { cwd: "/nowhere", checkpointAfter: true })).rejects.toThrow(/cannot start/);
    const c5 = await sb.checkpoint();
    expect(c5.parentRef).toBe(c4.ref);
    // A write's checkpoint is next in line behind it.
    await sb.writeFile("/work/e", "five", { checkpointAfter: true });
    const c6 = await sb.checkpoint();
    expect(c6.parentRef).toBe(c5.ref);
    const ls = async (ref: string) => sh(await driver.create({ fromCheckpoint: ref }), "ls /work");
    expect(await ls(c1.ref)).toBe("a\n");
    expect(await ls(c2.ref)).toBe("a\nb\n");
    expect(await ls(c4.ref)).toBe("a\nb\nc\nd\n");
    expect(await ls(c5.ref)).toBe("a\nb\nc\nd\n");
    expect(await ls(c6.ref)).toBe("a\nb\nc\nd\ne\n");
  });

  it("rejects unknown, malformed, corrupt and missing checkpoints", async () => {
    await expect(driver.create({ fromCheckpoint: "0123456789abcdef" })).rejects.toBeInstanceOf(CheckpointNotFoundError);
    await expect(driver.create({ fromCheckpoint: "../../etc" })).rejects.toBeInstanceOf(CheckpointNotFoundError);
    await expect(driver.readCheckpointFile("nope", "/x")).rejects.toBeInstanceOf(CheckpointNotFoundError);
    await expect(driver.changes("0123456789abcdef", null)).rejects.toBeInstanceOf(CheckpointNotFoundError);
    const sb = await driver.create({});
    await sb.writeFile("/x", "1");
    const c1 = await sb.checkpoint();
    await sb.writeFile("/x", "2");
    const c2 = await sb.checkpoint();
    await driver.close();
    await writeFile(path.join(dataDir, "layers", c2.ref, "meta.json"), "{not json");
    await rm(path.join(dataDir, "layers", c1.ref, "d"), { recursive: true });
    driver = await open();
    await expect(driver.create({ fromCheckpoint: c2.ref })).rejects.toBeInstanceOf(CheckpointNotFoundError);
    await expect(driver.create({ fromCheckpoint: c1.ref })).rejects.toBeInstanceOf(CheckpointNotFoundError);
  });

  it("init removes leftovers of an earlier process and refuses a data dir in use", async () => {
    await expect(open()).rejects.toThrow(/in use/);
    const sb = await driver.create({});
    await sb.writeFile("/x", "1");
    const c = await sb.checkpoint();
    await driver.close();
    await mkdir(path.join(dataDir, "layers", ".tmp-0123456789abcdef", "d"), { recursive: true });
    await mkdir(path.join(dataDir, "sandboxes", "sdead", "u0"), { recursive: true });
    driver = await open();
    expect(await readdir(path.join(dataDir, "sandboxes"))).toEqual([]);
    expect(existsSync(path.join(dataDir, "layers", ".tmp-0123456789abcdef"))).toBe(false);
    expect((await driver.listCheckpoints()).map((x) => x.ref)).toEqual([c.ref]);
  });

  it("leaves no dying memory cgroup behind a destroyed sandbox (they slow the kernel down)", async () => {
    const memoryCgroups = (): number | null => {
      const line = readFileSync("/proc/cgroups", "utf8").split("\n").find((l) => l.startsWith("memory\t"));
      return line ? Number(line.split("\t")[2]) : null;
    };
    const warm = await driver.create({});
    await warm.destroy();
    const before = memoryCgroups();
    if (before === null) return;
    for (let i = 0; i < 12; i++) {
      const sb = await driver.create({});
      // Page cache charged to the sandbox's cgroup (here: a file kept in a checkpoint) is what keeps a removed one alive.
      // Small groups are reused; one that holds more than a new sandbox's smallest limit is uncharged and removed.
      await sh(sb, `head -c ${i === 0 ? 40_000_000 : 4_000_000} /dev/urandom > /tmp/cache-${i} && echo ok`);
      await sb.checkpoint();
      await sb.destroy();
    }
    expect(memoryCgroups()).toBeLessThanOrEqual(before + 2);
  });

  it("asks ext4 to spread new layers and sandbox dirs over the disk, away from recently freed inodes", async () => {
    const sb = await driver.create({});
    const flags = (dir: string): string | null => {
      try {
        return execFileSync("lsattr", ["-d", dir], { stdio: ["ignore", "pipe", "ignore"] }).toString().split(" ")[0] ?? "";
      } catch {
        return null; // not ext4 (or no lsattr): nothing to ask
      }
    };
    const layers = flags(path.join(dataDir, "layers"));
    if (layers === null) return;
    expect(layers).toContain("T");
    expect(flags(path.join(dataDir, "sandboxes"))).toContain("T");
    expect(flags(path.join(dataDir, "sandboxes", sb.id))).toContain("T");
  });

  it("leaves no cgroup behind a closed driver, and removes those of killed helpers", async () => {
    if (!existsSync("/sys/fs/cgroup/pids")) return;
    const ours = async (): Promise<string[]> => (await readdir("/sys/fs/cgroup/pids")).filter((n) => n.startsWith("sprout-local-"));
    const sb = await driver.create({});
    await sh(sb, "true");
    const withDriver = await ours();
    await driver.close();
    expect(withDriver.length - (await ours()).length).toBe(1);
    // What a helper killed with SIGKILL leaves: a prefix, a helper dir and pre-made sandbox groups.
    const orphan = `sprout-local-orphan${process.pid}`;
    for (const ctrl of ["memory", "pids", "freezer"]) await mkdir(`/sys/fs/cgroup/${ctrl}/${orphan}/h0/c1`, { recursive: true });
    driver = await open();
    for (const ctrl of ["memory", "pids", "freezer"]) expect(existsSync(`/sys/fs/cgroup/${ctrl}/${orphan}`)).toBe(false);
  });

  it("spreads sandboxes created at once over several helpers, each able to restore any checkpoint", async () => {
    await driver.close();
    driver = await open({ helpers: 2 });
    const helperPids = (): number[] =>
      execFileSync("pgrep", ["-P", String(process.pid), "-x", "sprout-sandboxd"], { encoding: "utf8" }).trim().split("\n").map(Number);
    const children = (pid: number): number => Number(execFileSync("sh", ["-c", `pgrep -P ${pid} | wc -l`], { encoding: "utf8" }).trim());
    const first = await driver.create({});
    await first.writeFile("/data/x", "from the first helper");
    const ref = (await first.checkpoint()).ref;
    await first.destroy();
    const pids = helperPids();
    expect(pids).toHaveLength(2);
    await expect.poll(() => pids.map(children).join(","), { timeout: 5000 }).toBe("2,2"); // each one's ready-made shells
    // Two restores at once land on different helpers: each has one more process, the sandbox's init.
    const [a, b] = await Promise.all([driver.create({ fromCheckpoint: ref }), driver.create({ fromCheckpoint: ref })]);
    await expect.poll(() => pids.map(children).join(","), { timeout: 5000 }).toBe("3,3");
    expect(await sh(a, "cat /data/x")).toBe("from the first helper");
    expect(await sh(b, "cat /data/x")).toBe("from the first helper");
  });

  it("keeps a 600-checkpoint chain mountable (squashed stacks)", async () => {
    const sb = await driver.create({});
    let first = "";
    let mid = "";
    let last = "";
    for (let i = 1; i <= 600; i++) {
      await sb.writeFile(`/chain/f${i % 50}`, String(i));
      if (i === 1) await sb.writeFile("/chain/first", "1");
      const c = await sb.checkpoint();
      if (i === 1) first = c.ref;
      if (i === 300) mid = c.ref;
      last = c.ref;
    }
    const r = await driver.create({ fromCheckpoint: last });
    expect(await sh(r, "cat /chain/first /chain/f0 /chain/f49")).toBe("1600599");
    const m = await driver.create({ fromCheckpoint: mid });
    expect(await sh(m, "cat /chain/f0 /chain/f49")).toBe("300299");
    expect((await driver.readCheckpointFile(first, "/chain/f1"))?.toString()).toBe("1");
  }, 120_000);

  it("ignores squashes made with another fanout and squashes a deep chain that lacks them on demand", async () => {
    const sb = await driver.create({});
    let last = "";
    for (let i = 1; i <= 130; i++) {
      await sb.writeFile(`/deep/f${i % 7}`, String(i));
      last = (await sb.checkpoint()).ref;
    }
    await driver.close();
    // What an older version left: its squashes covered blocks of 16 layers.
    const squashes = path.join(dataDir, "squashes");
    for (const d of await readdir(squashes)) await rm(path.join(squashes, d), { recursive: true, force: true });
    const old = path.join(squashes, `${last}-L1`);
    await mkdir(path.join(old, "d"), { recursive: true });
    await writeFile(path.join(old, "meta.json"), JSON.stringify({ v: 1, top: last, level: 1, count: 16, createdAt: new Date().toISOString() }));
    driver = await open();
    expect(existsSync(old)).toBe(false);
    // 130 layers are more than a mount takes unsquashed: restoring builds the squashes first.
    const r = await driver.create({ fromCheckpoint: last });
    expect(await sh(r, "cat /deep/f4 /deep/f0 /deep/f3")).toBe("130126129");
    expect((await readdir(squashes)).filter((d) => !d.startsWith(".tmp-")).length).toBeGreaterThan(8);
  }, 120_000);

  it("lists no deleted file after a squash merges its creation and deletion (no stray whiteouts)", async () => {
    const sb = await driver.create({});
    await sh(sb, "mkdir -p /fresh/pkg && echo a > /fresh/gone.py && echo b > /fresh/kept.py && echo c > /fresh/pkg/x.py");
    await sb.checkpoint();
    await sh(sb, "rm /fresh/gone.py /fresh/pkg/x.py");
    let last = "";
    // Enough checkpoints for the first 4-layer blocks to be squashed in the background.
    for (let i = 0; i < 20; i++) {
      await sb.writeFile(`/elsewhere/n${i % 3}`, String(i));
      last = (await sb.checkpoint()).ref;
    }
    const squashes = path.join(dataDir, "squashes");
    await expect.poll(async () => (await readdir(squashes)).filter((d) => !d.startsWith(".tmp-")).length, { timeout: 30_000 }).toBeGreaterThan(0);
    const r = await driver.create({ fromCheckpoint: last });
    expect(await sh(r, "ls -A /fresh /fresh/pkg; python3 -c 'import glob; print(sorted(glob.glob(\"/fresh/**/*.py\", recursive=True)))'")).toBe(
      "/fresh:\nkept.py\npkg\n\n/fresh/pkg:\n['/fresh/kept.py']\n",
    );
  }, 60_000);
});
