import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { DriverUnavailableError, SandboxError } from "../errors";
import type { CollectResult, CreateSandboxOptions, FileChange, Sandbox, SandboxDriver, SandboxLimits, StoredCheckpoint } from "../types";
import { BaseResolver } from "./base-resolver";
import { checkpointChanges } from "./checkpoint-changes";
import { EISDIR, ENOENT, HelperClient, HelperError } from "./helper-client";
import { LayerStore } from "./layer-store";
import { LocalSandbox } from "./local-sandbox";
import { Op } from "./protocol";

/** Options of the local (overlayfs + namespaces) driver. */
export interface LocalDriverOptions {
  /** Where layers, bases and sandbox upper dirs live; one driver process per data dir at a time. */
  dataDir: string;
  /** Limits of sandboxes that do not set their own. */
  defaultLimits?: Partial<SandboxLimits>;
  /** Per-sandbox disk budget of its writable layer (also the largest single file). */
  maxDiskBytesPerSandbox?: number;
  /** Commands are killed when the data dir's free space drops below this. */
  diskReserveBytes?: number;
  defaultTimeoutMs?: number;
  defaultMaxOutputBytes?: number;
  /** Host paths hidden from `host` bases in addition to the defaults. */
  hiddenPaths?: string[];
  /** Local bases for `{ kind: "image", ref }`: name -> rootfs dir or tarball. */
  images?: Record<string, string>;
  /** The helper binary (default: native/build/sprout-sandboxd). */
  helperPath?: string;
  /**
   * Helper processes; each runs the sandboxes given to it one operation at a time (a checkpoint
   * remounts for a few ms), so concurrent rollouts spread over several. Default: one per two CPUs, at
   * most 4 (on 2 cores, 1 and 2 helpers measured the same within noise).
   */
  helpers?: number;
}

const DEFAULT_LIMITS: SandboxLimits = { memoryBytes: 2 * 1024 ** 3, pids: 1024, cpuSeconds: 3600, network: false };

const limitsSchema = z.object({
  memoryBytes: z.number().int().min(16 * 1024 ** 2),
  pids: z.number().int().min(8),
  cpuSeconds: z.number().int().min(1),
  network: z.boolean(),
});

/** Cgroups of this driver's helpers are named after it (one name per data dir), under each controller's root. */
const CGROUP_NAME_PREFIX = "sprout-local-";

const sandboxPath = z.string().refine((p) => p.startsWith("/") && !p.includes("\0"), "must be an absolute path");

export function createLocalDriver(options: LocalDriverOptions): SandboxDriver {
  const dataDir = path.resolve(options.dataDir);
  const cgroupPrefix = `${CGROUP_NAME_PREFIX}${createHash("sha256").update(dataDir).digest("hex").slice(0, 12)}`;
  const count = z.number().int().min(1).max(16).parse(options.helpers ?? Math.max(1, Math.min(4, Math.floor(os.availableParallelism() / 2))));
  // Each helper has its own mount namespace (and so its own host-base masks) and its own cgroups.
  const helpers = Array.from(
    { length: count },
    (_, i) =>
      new HelperClient({
        dataDir,
        cgroupPrefix: `${cgroupPrefix}/h${i}`,
        diskReserveBytes: options.diskReserveBytes ?? 1024 ** 3,
        binaryPath: options.helperPath,
      }),
  );
  // Work on stored checkpoints (squashes, reads, diffs) goes to the first helper.
  const helper = helpers[0]!;
  const store = new LayerStore(dataDir, helper);
  const bases = new BaseResolver({ dataDir, helper, hiddenPaths: options.hiddenPaths ?? [], images: options.images ?? {} });
  const live = new Set<LocalSandbox>();
  const load = new Map<HelperClient, number>(helpers.map((h) => [h, 0]));
  /** The helper with the fewest sandboxes (counted from the moment one is picked, so that concurrent creates spread). */
  const reserveHelper = (): { helper: HelperClient; release: () => void } => {
    const picked = helpers.reduce((a, b) => ((load.get(b) ?? 0) < (load.get(a) ?? 0) ? b : a));
    load.set(picked, (load.get(picked) ?? 0) + 1);
    let held = true;
    const release = () => {
      if (held) load.set(picked, (load.get(picked) ?? 1) - 1);
      held = false;
    };
    return { helper: picked, release };
  };
  let ready: Promise<void> | null = null;
  const pidFile = path.join(dataDir, "owner.pid");

  async function doInit(): Promise<void> {
    if (process.platform !== "linux") throw new DriverUnavailableError("the local driver needs Linux (overlayfs, namespaces)");
    for (const d of ["layers", "squashes", "bases", "sandboxes"]) await mkdir(path.join(dataDir, d), { recursive: true });
    claimDataDir(pidFile);
    unmountLeftovers(dataDir);
    // Upper dirs of sandboxes of an earlier process: their mounts died with its helper.
    for (const e of await readdir(path.join(dataDir, "sandboxes"))) {
      await rm(path.join(dataDir, "sandboxes", e), { recursive: true, force: true });
    }
    for (const e of await readdir(path.join(dataDir, "bases"))) {
      if (e.startsWith(".tmp-")) await rm(path.join(dataDir, "bases", e), { recursive: true, force: true });
    }
    await rm(path.join(dataDir, ".mnt"), { recursive: true, force: true });
    removeOrphanCgroups(cgroupPrefix);
    await Promise.all(
      helpers.map(async (h) => {
        await h.start();
        await h.call(Op.cgCleanup, []);
      }),
    );
    await store.load();
  }

  async function ensureInit(): Promise<void> {
    ready ??= doInit();
    ready.catch(() => {
      ready = null;
    });
    return ready;
  }

  /** Mounts a sandbox's filesystem (a base, or a checkpoint's layers) and starts it on `helper`. */
  async function createOn(
    helper: HelperClient,
    o: CreateSandboxOptions,
    parentRef: string | null,
    limits: SandboxLimits,
    workdir: string,
    release: () => void,
  ): Promise<LocalSandbox> {
    let base;
    let lowers: string[];
    if (parentRef) {
      base = store.baseOf(parentRef);
      // Squashes of the chain, which lowersFor may wait for, run on the first helper.
      await bases.ensure(base);
      lowers = await store.lowersFor(parentRef, true);
    } else {
      base = await bases.resolve(o.base ?? { kind: "host" });
      lowers = base.lowers;
    }
    await bases.ensure(base, helper);
    const id = `s${randomBytes(6).toString("hex")}`;
    const maxDisk = options.maxDiskBytesPerSandbox ?? 10 * 1024 ** 3;
    try {
      await helper.call(Op.create, [id, `sandboxes/${id}`, lowers.join(":"), "sandbox", limits.network ? 1 : 0, limits.memoryBytes, limits.pids, maxDisk]);
    } catch (e) {
      await rm(path.join(dataDir, "sandboxes", id), { recursive: true, force: true });
      if (e instanceof HelperError && parentRef) throw new SandboxError(`cannot restore ${parentRef}: ${e.message}`);
      throw e;
    }
    return new LocalSandbox({
      id,
      dataDir,
      helper,
      store,
      base,
      parentRef,
      limits,
      workdir,
      env: o.env ?? {},
      defaultTimeoutMs: options.defaultTimeoutMs ?? 10 * 60_000,
      defaultMaxOutputBytes: options.defaultMaxOutputBytes ?? 1024 ** 2,
      maxFileBytes: maxDisk,
      onGone: (s) => {
        live.delete(s);
        release();
      },
    });
  }

  const driver: SandboxDriver = {
    name: "local",

    init: ensureInit,

    async create(o: CreateSandboxOptions): Promise<Sandbox> {
      await ensureInit();
      const limits = limitsSchema.parse({ ...DEFAULT_LIMITS, ...options.defaultLimits, ...o.limits });
      const workdir = sandboxPath.parse(o.workdir ?? "/");
      const parentRef = o.fromCheckpoint ?? null;
      const { helper: sandboxHelper, release } = reserveHelper();
      let sandbox: LocalSandbox;
      try {
        sandbox = await createOn(sandboxHelper, o, parentRef, limits, workdir, release);
      } catch (e) {
        release();
        throw e;
      }
      live.add(sandbox);
      try {
        if (workdir !== "/") await sandboxHelper.call(Op.mkdirp, [sandbox.id, workdir]);
        if (o.labels) await writeFile(path.join(dataDir, "sandboxes", sandbox.id, "labels.json"), JSON.stringify(o.labels));
      } catch (e) {
        await sandbox.destroy();
        throw e;
      }
      return sandbox;
    },

    async listCheckpoints(): Promise<StoredCheckpoint[]> {
      await ensureInit();
      return store.list();
    },

    async collect(keep: readonly string[]): Promise<CollectResult> {
      await ensureInit();
      const inUse = [...live].map((s) => s.currentParent).filter((r): r is string => r !== null);
      return store.collect(keep, inUse);
    },

    async changes(ref: string, baseRef: string | null): Promise<FileChange[]> {
      await ensureInit();
      await bases.ensure(store.baseOf(ref));
      if (baseRef) await bases.ensure(store.baseOf(baseRef));
      return checkpointChanges(store, helper, ref, baseRef);
    },

    async readCheckpointFile(ref: string, p: string): Promise<Buffer | null> {
      await ensureInit();
      await bases.ensure(store.baseOf(ref));
      const lowers = await store.lowersFor(ref, true);
      try {
        const f = await helper.call(Op.readFile, ["", lowers.join(":"), path.posix.resolve("/", p), 1 << 30]);
        return Buffer.from(f[0] ?? Buffer.alloc(0));
      } catch (e) {
        if (e instanceof HelperError && (e.errno === ENOENT || e.errno === 20 /* ENOTDIR */)) return null;
        if (e instanceof HelperError && e.errno === EISDIR) throw new SandboxError(`${p} is a directory in ${ref}`);
        throw e;
      }
    },

    async close(): Promise<void> {
      if (!ready) return;
      await Promise.allSettled([...live].map((s) => s.destroy()));
      store.stop();
      await Promise.all(helpers.map((h) => h.stop()));
      ready = null;
      await rm(pidFile, { force: true });
      claimedInThisProcess.delete(pidFile);
    },
  };
  return driver;
}

const claimedInThisProcess = new Set<string>();

/** One driver per data dir: init() of a second one would tear down the first one's sandboxes. */
function claimDataDir(pidFile: string): void {
  if (claimedInThisProcess.has(pidFile)) throw new DriverUnavailableError(`data dir ${path.dirname(pidFile)} is in use by another driver of this process`);
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && existsSync(`/proc/${pid}`)) {
      throw new DriverUnavailableError(`data dir ${path.dirname(pidFile)} is in use by process ${pid}`);
    }
  }
  writeFileSync(pidFile, String(process.pid));
  claimedInThisProcess.add(pidFile);
}

/**
 * Cgroups left by helpers that were killed (a server killed with SIGKILL cannot clean up) and whose
 * data dir is not opened again, as with temporary ones: removed when no running helper uses them,
 * so that they do not pile up. A cgroup with a process in it is never removed (rmdir refuses).
 */
function removeOrphanCgroups(own: string): void {
  const live = new Set<string>();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (argv[0]?.endsWith("sprout-sandboxd") && argv[2]) live.add(argv[2].split("/")[0]!);
    } catch {
      // gone meanwhile
    }
  }
  const removeTree = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) removeTree(path.join(dir, e.name));
    rmdirSync(dir);
  };
  for (const ctrl of ["memory", "pids", "freezer"]) {
    const root = `/sys/fs/cgroup/${ctrl}`;
    let names: string[] = [];
    try {
      names = readdirSync(root).filter((n) => n.startsWith(CGROUP_NAME_PREFIX) && n !== own && !live.has(n));
    } catch {
      continue;
    }
    for (const name of names) {
      try {
        removeTree(path.join(root, name));
      } catch {
        // in use after all, or no permission: leave it
      }
    }
  }
}

/** Mounts under the data dir in our namespace can only come from older tools or a crash mid-setup. */
function unmountLeftovers(dataDir: string): void {
  let info = "";
  try {
    info = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return;
  }
  const points = info
    .split("\n")
    .map((l) => l.split(" ")[4] ?? "")
    .map((p) => p.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))))
    .filter((p) => p.startsWith(`${dataDir}/`))
    .sort((a, b) => b.length - a.length);
  for (const p of points) spawnSync("umount", ["-l", p]);
}
