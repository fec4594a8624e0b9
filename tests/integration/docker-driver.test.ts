/**
 * The docker driver against a real engine. beforeAll installs/starts dockerd and builds the base rootfs when this
 * machine has none (scripts/ensure-*.sh; minutes the first time, instant after).
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import Docker from "dockerode";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDockerDriver } from "@/server/sandbox/docker/docker-driver";
import { CheckpointNotFoundError, DriverUnavailableError, SandboxGoneError } from "@/server/sandbox/errors";
import type { CreateSandboxOptions, Sandbox, SandboxDriver } from "@/server/sandbox/types";

const repo = path.resolve(import.meta.dirname, "../..");
const SCOPE = "integration-test";
const BASE = { kind: "image", ref: "sprout-base:bookworm" } as const;

let rootfsTarball = "";
let driver: SandboxDriver;
const docker = new Docker();
const opened: Sandbox[] = [];

async function sandbox(options: CreateSandboxOptions = {}, on: SandboxDriver = driver): Promise<Sandbox> {
  const s = await on.create({ base: BASE, ...options });
  opened.push(s);
  return s;
}

async function ok(s: Sandbox, command: string): Promise<string> {
  const r = await s.exec(command, { timeoutMs: 30_000 });
  expect(r.stderr, command).toBe("");
  expect(r.exitCode, command).toBe(0);
  return r.stdout;
}

async function scopeContainers(): Promise<string[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [`sprout.scope=${SCOPE}`] } });
  return list.map((c) => c.Id);
}

// Everything under a directory as lstat sees it: type+content (hash or link target), mode, uid, gid.
const LISTING = `
import hashlib, json, os, stat, sys
root = sys.argv[1]
out = {}
for dp, dns, fns in os.walk(root):
    for n in dns + fns:
        p = os.path.join(dp, n)
        st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode): what = "l:" + os.readlink(p)
        elif stat.S_ISREG(st.st_mode): what = "f:" + hashlib.sha256(open(p, "rb").read()).hexdigest()
        elif stat.S_ISDIR(st.st_mode): what = "d"
        else: what = "o"
        out[os.path.relpath(p, root)] = [what, stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid]
print(json.dumps(out, sort_keys=True))
`;

async function listing(s: Sandbox, dir: string): Promise<unknown> {
  const r = await s.exec(["python3", "-c", LISTING, dir], { timeoutMs: 30_000 });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as unknown;
}

/** mulberry32: a fixed seed gives the same operations on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomOps(rand: () => number, count: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const dirs = [".", "d0", "d1", "d0/e"];
  const names = ["f0", "f1", "f2", "f3", "l0", "l1"];
  const where = (): string => `${pick(dirs)}/${pick(names)}`;
  const content = (): string => {
    const chars = "abcdefghijklmnopqrstuvwxyz0123456789 \n";
    let s = "";
    const len = Math.floor(rand() * 3000);
    for (let i = 0; i < len; i++) s += chars[Math.floor(rand() * chars.length)];
    return s;
  };
  const ops: string[] = [];
  for (let i = 0; i < count; i++) {
    const p = where();
    switch (pick(["write", "write", "chmod", "chown", "symlink", "rm", "rmdir", "mkdir", "mv"] as const)) {
      case "write":
        ops.push(`mkdir -p "$(dirname ${p})" && rm -rf ${p} && printf '%s' '${content()}' > ${p}`);
        break;
      case "chmod":
        ops.push(`chmod ${pick(["600", "644", "755", "700", "640", "1777", "2755"])} ${pick([p, pick(dirs)])}`);
        break;
      case "chown":
        ops.push(`chown -h ${pick(["0:0", "1000:1000", "4242:17", "65534:65534"])} ${pick([p, pick(dirs)])}`);
        break;
      case "symlink":
        ops.push(`mkdir -p "$(dirname ${p})" && rm -rf ${p} && ln -s ${pick(["f0", "../f1", "/etc/hostname", "missing", "d0"])} ${p}`);
        break;
      case "rm":
        ops.push(`rm -f ${p}`);
        break;
      case "rmdir":
        ops.push(`rm -rf ${pick(dirs.slice(1))}`);
        break;
      case "mkdir":
        ops.push(`mkdir -p ${pick(dirs.slice(1))}`);
        break;
      case "mv":
        ops.push(`mv -T ${p} ${where()}`);
        break;
    }
  }
  // Operations on paths that do not exist (yet) fail; that is part of the randomness.
  return ops.map((op) => `(${op}) 2>/dev/null`).join("\n") + "\ntrue";
}

beforeAll(() => {
  execFileSync("bash", [path.join(repo, "scripts/ensure-docker.sh")], { stdio: ["ignore", "inherit", "inherit"] });
  rootfsTarball = execFileSync("bash", [path.join(repo, "scripts/ensure-rootfs.sh")], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  }).trim();
  driver = createDockerDriver({ scope: SCOPE });
  return driver.init();
}, 15 * 60_000);

afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.destroy()));
});

afterAll(async () => {
  await driver?.close();
  await driver?.collect([]);
  expect(await scopeContainers()).toEqual([]);
});

describe("docker driver", () => {
  it("runs commands with cwd, env, stdin, exit codes and output caps", async () => {
    const s = await sandbox({ workdir: "/work/here", env: { GREETING: "hi" } });
    const r = await s.exec('echo "$GREETING $EXTRA $(pwd)"; echo oops >&2; exit 7', { env: { EXTRA: "there" } });
    expect(r).toMatchObject({ exitCode: 7, stdout: "hi there /work/here\n", stderr: "oops\n", timedOut: false });
    expect((await s.exec(["cat"], { stdin: "from stdin", cwd: "/tmp" })).stdout).toBe("from stdin");
    const big = await s.exec("head -c 100000 /dev/zero | tr '\\0' x; head -c 10 /dev/zero | tr '\\0' y >&2", { maxOutputBytes: 1000 });
    expect(big.stdout).toBe("x".repeat(1000));
    expect(big).toMatchObject({ stdoutTruncated: true, stderr: "y".repeat(10), stderrTruncated: false });

    await s.writeFile("deep/er/file.sh", "#!/bin/sh\necho run\n", { mode: 0o750 });
    expect((await s.readFile("/work/here/deep/er/file.sh")).toString()).toContain("echo run");
    expect(await ok(s, "stat -c %a deep/er/file.sh && ./deep/er/file.sh")).toBe("750\nrun\n");
  });

  it("kills a command that never ends, and what it started, at the timeout", async () => {
    const s = await sandbox();
    const r = await s.exec("sleep 1000 & setsid sleep 2000 & sleep 3000", { timeoutMs: 500 });
    expect(r).toMatchObject({ timedOut: true, exitCode: -1 });
    expect(r.durationMs).toBeLessThan(10_000);
    expect(await ok(s, "cat /proc/[0-9]*/cmdline | tr '\\0' ' '")).not.toMatch(/sleep [123]000/);
    expect(await ok(s, "echo still usable")).toBe("still usable\n");
  });

  it("has no network but loopback", async () => {
    const s = await sandbox();
    expect((await ok(s, "ls /sys/class/net")).trim()).toBe("lo");
    const r = await s.exec(["python3", "-c", "import socket; socket.create_connection(('1.1.1.1', 53), timeout=3)"]);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/unreachable|OSError/i);
  });

  it("holds memory and process limits", async () => {
    const s = await sandbox({ limits: { memoryBytes: 64 * 1024 ** 2, pids: 40 } });
    const mem = await s.exec(["python3", "-c", "b = bytearray(256 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); print('survived')"]);
    expect(mem.stdout).not.toContain("survived");
    expect(mem.exitCode).toBe(137);

    // Forks until refused, then reaps its children itself so the sandbox stays usable.
    const forks = await s.exec(["python3", "-c", [
      "import os, signal",
      "kids = []",
      "try:",
      "    for _ in range(200):",
      "        pid = os.fork()",
      "        if pid == 0:",
      "            signal.pause()",
      "        kids.append(pid)",
      "except OSError:",
      "    pass",
      "for k in kids: os.kill(k, signal.SIGKILL); os.waitpid(k, 0)",
      "print(len(kids))",
    ].join("\n")]);
    expect(forks.exitCode, forks.stderr).toBe(0);
    expect(Number(forks.stdout)).toBeGreaterThan(5);
    expect(Number(forks.stdout)).toBeLessThan(40);
  });

  it("restores files, modes, owners, symlinks and deletions exactly, at every checkpoint", async () => {
    const rand = prng(20261202);
    const s = await sandbox();
    await ok(s, "mkdir -p /work/t");
    const recorded: { ref: string; files: unknown; hasDebianVersion: boolean }[] = [];
    let parent: string | null = null;
    for (let round = 0; round < 6; round++) {
      await ok(s, `cd /work/t && ${randomOps(rand, 12)}`);
      // A deletion from the base image must survive a restore too.
      if (round === 2) await ok(s, "rm /etc/debian_version");
      const files = await listing(s, "/work/t");
      const cp = await s.checkpoint();
      expect(cp.parentRef).toBe(parent);
      parent = cp.ref;
      recorded.push({ ref: cp.ref, files, hasDebianVersion: round < 2 });
    }
    // The operations must have produced what the test claims to cover.
    const entries = recorded.flatMap((r) => Object.values(r.files as Record<string, [string, number, number, number]>));
    expect(entries.some(([what]) => what.startsWith("l:"))).toBe(true);
    expect(entries.some(([, , uid]) => uid !== 0)).toBe(true);
    expect(entries.some(([, mode]) => mode !== 0o644 && mode !== 0o755 && mode !== 0o777)).toBe(true);
    expect(new Set(recorded.map((r) => JSON.stringify(r.files))).size).toBeGreaterThan(3);
    // The sandbox keeps running on top of its checkpoints.
    await ok(s, "rm -rf /work/t && echo later > /work/later");

    for (const { ref, files, hasDebianVersion } of recorded) {
      const r = await sandbox({ fromCheckpoint: ref });
      expect(await listing(r, "/work/t")).toEqual(files);
      expect((await r.exec("test -e /etc/debian_version")).exitCode).toBe(hasDebianVersion ? 0 : 1);
      expect((await r.exec("test -e /work/later")).exitCode).toBe(1);
      await r.destroy();
    }
    const last = recorded.at(-1)!;
    const someFile = Object.entries(last.files as Record<string, [string]>).find(([, [what]]) => what.startsWith("f:"));
    if (someFile) {
      const data = await driver.readCheckpointFile(last.ref, `/work/t/${someFile[0]}`);
      expect(data).not.toBeNull();
    }
    expect(await driver.readCheckpointFile(last.ref, "/work/t/never-was")).toBeNull();
  });

  it("keeps two branches from one checkpoint apart", async () => {
    const root = await sandbox();
    await ok(root, "mkdir /work && echo shared > /work/shared && echo base > /work/edited");
    const fork = await root.checkpoint();
    const a = await sandbox({ fromCheckpoint: fork.ref });
    const b = await sandbox({ fromCheckpoint: fork.ref });
    await ok(a, "echo a > /work/only-a && echo from-a > /work/edited && rm /work/shared");
    await ok(b, "echo b > /work/only-b && echo from-b >> /work/edited");
    expect(await ok(a, "ls /work; cat /work/edited")).toBe("edited\nonly-a\nfrom-a\n");
    expect(await ok(b, "ls /work; cat /work/edited")).toBe("edited\nonly-b\nshared\nbase\nfrom-b\n");
    const ca = await a.checkpoint();
    const cb = await b.checkpoint();
    expect(ca.parentRef).toBe(fork.ref);
    expect(cb.parentRef).toBe(fork.ref);
    const again = await sandbox({ fromCheckpoint: ca.ref });
    expect(await ok(again, "ls /work")).toBe("edited\nonly-a\n");
    expect(await ok(root, "ls /work")).toBe("edited\nshared\n");

    const changes = await driver.changes(cb.ref, fork.ref);
    expect(changes).toEqual([
      { path: "/work/edited", kind: "modified", type: "file", size: 12 },
      { path: "/work/only-b", kind: "added", type: "file", size: 2 },
    ]);
    const fromBase = await driver.changes(ca.ref, null);
    expect(fromBase.filter((c) => c.path.startsWith("/work"))).toEqual([
      { path: "/work", kind: "added", type: "dir", size: 0 },
      { path: "/work/edited", kind: "added", type: "file", size: 7 },
      { path: "/work/only-a", kind: "added", type: "file", size: 2 },
    ]);
  });

  it("squashes a deep chain into one layer without losing the lineage", async () => {
    const shallow = createDockerDriver({ scope: SCOPE, squashAtLayers: 3 });
    let s = await sandbox({}, shallow);
    let parent: string | null = null;
    for (let i = 0; i < 4; i++) {
      await ok(s, `echo ${i} > /root/gen${i}`);
      const cp = await s.checkpoint();
      expect(cp.parentRef).toBe(parent);
      parent = cp.ref;
      const layers = ((await docker.getImage(cp.ref).inspect()).RootFS.Layers ?? []).length;
      expect(layers).toBeLessThanOrEqual(3);
      await s.destroy();
      s = await sandbox({ fromCheckpoint: cp.ref }, shallow);
    }
    expect(await ok(s, "cat /root/gen0 /root/gen1 /root/gen2 /root/gen3")).toBe("0\n1\n2\n3\n");
    const stored = await shallow.listCheckpoints();
    expect(stored.find((c) => c.ref === parent)?.parentRef).toBeTruthy();
  });

  it("opens an interactive terminal", async () => {
    const s = await sandbox();
    const pty = await s.openPty({ cols: 80, rows: 24, command: ["/bin/bash", "--norc", "-i"] });
    let seen = "";
    const exited = new Promise<number>((resolve) => pty.onExit(resolve));
    const echoed = new Promise<void>((resolve) =>
      pty.onData((chunk) => {
        seen += chunk.toString();
        if (seen.includes("cols=80 sum=42")) resolve();
      }),
    );
    pty.write('echo "cols=$(tput cols 2>/dev/null || stty size | cut -d" " -f2) sum=$((40+2))"\n');
    await echoed;
    pty.write("exit 3\n");
    expect(await exited).toBe(3);
  });

  it("imports a rootfs tarball once as a base", async () => {
    const s = await sandbox({ base: { kind: "rootfs", path: rootfsTarball } });
    expect(await ok(s, "python3 -c 'print(6*7)'")).toBe("42\n");
  });

  it("reports unknown refs, an unusable base and an unreachable engine", async () => {
    const missing = "sha256:" + "0".repeat(64);
    await expect(driver.create({ fromCheckpoint: missing })).rejects.toBeInstanceOf(CheckpointNotFoundError);
    await expect(driver.create({ base: { kind: "image", ref: "no-such-image:1" } })).rejects.toBeInstanceOf(CheckpointNotFoundError);
    await expect(driver.changes(missing, null)).rejects.toBeInstanceOf(CheckpointNotFoundError);
    await expect(driver.readCheckpointFile(missing, "/etc/passwd")).rejects.toBeInstanceOf(CheckpointNotFoundError);
    await expect(driver.create({ base: { kind: "host" } })).rejects.toBeInstanceOf(DriverUnavailableError);
    const nowhere = createDockerDriver({ socketPath: "/nonexistent/docker.sock", scope: SCOPE });
    await expect(nowhere.init()).rejects.toThrow(/ensure-docker\.sh/);
    await expect(nowhere.create({ base: BASE })).rejects.toBeInstanceOf(DriverUnavailableError);

    const s = await sandbox();
    await s.destroy();
    await s.destroy();
    await expect(s.exec("true")).rejects.toBeInstanceOf(SandboxGoneError);
  });

  it("removes leftovers of an earlier process on init", async () => {
    const earlier = createDockerDriver({ scope: SCOPE });
    const left = await earlier.create({ base: BASE });
    const before = await docker.listContainers({ all: true, filters: { label: [`sprout.sandbox=${left.id}`] } });
    expect(before).toHaveLength(1);
    const later = createDockerDriver({ scope: SCOPE });
    await later.init();
    expect(await docker.listContainers({ all: true, filters: { label: [`sprout.sandbox=${left.id}`] } })).toEqual([]);
    await expect(left.exec("true")).rejects.toBeInstanceOf(SandboxGoneError);
  });

  it("collects what no kept checkpoint needs", async () => {
    const s = await sandbox();
    await ok(s, "echo 1 > /root/one");
    const first = await s.checkpoint();
    const unreferenced = await s.checkpoint();
    const r = await sandbox({ fromCheckpoint: first.ref });
    await ok(r, "echo 2 > /root/two");
    const kept = await r.checkpoint();
    await Promise.all(opened.splice(0).map((x) => x.destroy()));

    const result = await driver.collect([kept.ref]);
    expect(result.removed).toContain(unreferenced.ref);
    // `first` holds the layers `kept` is built on.
    expect(result.removed).not.toContain(first.ref);
    expect(result.removed).not.toContain(kept.ref);
    expect(result.bytesFreed).toBeGreaterThanOrEqual(0);
    const refs = (await driver.listCheckpoints()).map((c) => c.ref);
    expect(refs).toEqual(expect.arrayContaining([first.ref, kept.ref]));
    expect(refs).not.toContain(unreferenced.ref);

    const back = await sandbox({ fromCheckpoint: kept.ref });
    expect(await ok(back, "cat /root/one /root/two")).toBe("1\n2\n");
    await expect(driver.create({ fromCheckpoint: unreferenced.ref })).rejects.toBeInstanceOf(CheckpointNotFoundError);
  });
});
