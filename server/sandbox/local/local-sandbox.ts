import { rm } from "node:fs/promises";
import path from "node:path";
import { ResourceExhaustedError, SandboxError, SandboxGoneError } from "../errors";
import type { CheckpointResult, ExecOptions, ExecResult, PtyOptions, PtySession, Sandbox, SandboxLimits } from "../types";
import { EISDIR, ENOENT, ENOSPC, EDQUOT, ESRCH, HelperError, type HelperClient } from "./helper-client";
import type { BaseInfo } from "./layer-meta";
import { layerDir, type LayerStore } from "./layer-store";
import { Op } from "./protocol";
import { RwLock } from "./rw-lock";

const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export interface LocalSandboxInit {
  id: string;
  dataDir: string;
  helper: HelperClient;
  store: LayerStore;
  base: BaseInfo;
  /** The checkpoint the live filesystem is incremental on (null: the base). */
  parentRef: string | null;
  limits: SandboxLimits;
  workdir: string;
  env: Record<string, string>;
  defaultTimeoutMs: number;
  defaultMaxOutputBytes: number;
  maxFileBytes: number;
  onGone: (s: LocalSandbox) => void;
}

/** A sandbox of the local driver; all privileged work goes through the shared helper. */
export class LocalSandbox implements Sandbox {
  readonly driver = "local" as const;
  readonly id: string;
  private parentRef: string | null;
  private upperSeq = 0;
  private gone = false;
  private readonly lock = new RwLock();

  constructor(private readonly o: LocalSandboxInit) {
    this.id = o.id;
    this.parentRef = o.parentRef;
  }

  /** The checkpoint this sandbox's filesystem stacks on: collect must keep it. */
  get currentParent(): string | null {
    return this.parentRef;
  }

  private check(): void {
    if (this.gone) throw new SandboxGoneError(this.id);
  }

  private mapError(e: unknown): never {
    if (e instanceof HelperError && e.errno === ESRCH) {
      this.gone = true;
      throw new SandboxGoneError(this.id);
    }
    throw e;
  }

  private resolvePath(p: string): string {
    return path.posix.resolve(this.o.workdir, p);
  }

  exec(command: string | string[], options: ExecOptions = {}): Promise<ExecResult> {
    return this.lock.withShared(async () => {
      this.check();
      const argv = typeof command === "string" ? ["/bin/sh", "-c", command] : command;
      if (argv.length === 0) throw new SandboxError("empty command");
      const env = { PATH: DEFAULT_PATH, HOME: "/root", LANG: "C.UTF-8", ...this.o.env, ...options.env };
      const envBlock = Object.entries(env).map(([k, v]) => `${k}=${v}\0`).join("");
      const cwd = this.resolvePath(options.cwd ?? this.o.workdir);
      const stdin = options.stdin === undefined ? Buffer.alloc(0) : Buffer.from(options.stdin);
      const timeoutMs = options.timeoutMs ?? this.o.defaultTimeoutMs;
      const maxOut = options.maxOutputBytes ?? this.o.defaultMaxOutputBytes;
      const started = performance.now();
      let f: Buffer[];
      try {
        f = await this.o.helper.call(Op.exec, [
          this.id,
          argv.map((a) => `${a}\0`).join(""),
          envBlock,
          cwd,
          Math.max(0, Math.round(timeoutMs)),
          maxOut,
          stdin,
          this.o.limits.cpuSeconds,
          this.o.maxFileBytes,
          this.o.limits.memoryBytes,
          this.o.limits.pids,
        ]);
      } catch (e) {
        return this.mapError(e);
      }
      const num = (i: number) => Number(f[i]?.toString() ?? "0");
      const startError = f[8]?.toString() ?? "";
      if (num(7) === 1) {
        await this.destroyLocked();
        throw new ResourceExhaustedError(`sandbox ${this.id} exceeded its disk budget; it was destroyed`);
      }
      if (startError && !startError.startsWith(`${argv[0]}:`)) throw new SandboxError(`cannot start command: ${startError}`);
      let stderr = f[10]?.toString() ?? "";
      let exitCode = num(0);
      if (startError) {
        stderr += `${startError}\n`;
        exitCode = startError.includes("Permission denied") ? 126 : 127;
      }
      if (num(5) === 1) stderr += `\n[sandbox] a process was killed: out of memory (limit ${this.o.limits.memoryBytes} bytes)\n`;
      if (num(6) === 1) stderr += `\n[sandbox] process limit reached (${this.o.limits.pids})\n`;
      const timedOut = num(2) === 1;
      return {
        exitCode: timedOut ? -1 : exitCode,
        stdout: f[9]?.toString() ?? "",
        stderr,
        stdoutTruncated: num(3) === 1,
        stderrTruncated: num(4) === 1,
        timedOut,
        durationMs: performance.now() - started,
      };
    });
  }

  readFile(p: string): Promise<Buffer> {
    return this.lock.withShared(async () => {
      this.check();
      try {
        const f = await this.o.helper.call(Op.readFile, [this.id, "", this.resolvePath(p), 1 << 30]);
        return Buffer.from(f[0] ?? Buffer.alloc(0));
      } catch (e) {
        if (e instanceof HelperError && (e.errno === ENOENT || e.errno === EISDIR)) throw new SandboxError(`readFile ${p}: ${e.message}`);
        return this.mapError(e);
      }
    });
  }

  writeFile(p: string, data: string | Buffer, options: { mode?: number } = {}): Promise<void> {
    return this.lock.withShared(async () => {
      this.check();
      try {
        await this.o.helper.call(Op.writeFile, [this.id, this.resolvePath(p), Buffer.from(data), options.mode ?? ""]);
      } catch (e) {
        if (e instanceof HelperError && (e.errno === ENOSPC || e.errno === EDQUOT)) throw new ResourceExhaustedError(e.message);
        return this.mapError(e);
      }
    });
  }

  /** Runs processes are stopped: a checkpoint's live sandbox and a restore of it are the same. */
  checkpoint(): Promise<CheckpointResult> {
    return this.lock.withExclusive(async () => {
      this.check();
      const started = performance.now();
      const store = this.o.store;
      const ref = store.newRef();
      const parent = this.parentRef ? store.get(this.parentRef) : null;
      const depth = (parent?.depth ?? 0) + 1;
      const createdAt = new Date().toISOString();
      const metaHead = JSON.stringify({ v: 1, id: ref, parent: this.parentRef, depth, base: this.o.base, createdAt }).slice(0, -1);
      // Squashes finished since the last mount shorten this one.
      const below = this.parentRef ? await store.lowersFor(this.parentRef) : this.o.base.lowers;
      const lowers = [layerDir(ref), ...below];
      const upper = `u${++this.upperSeq}`;
      let f: Buffer[];
      try {
        f = await this.o.helper.call(Op.checkpoint, [this.id, `layers/.tmp-${ref}`, `layers/${ref}`, metaHead, lowers.join(":"), upper]);
      } catch (e) {
        return this.mapError(e);
      }
      const bytes = Number(f[0]?.toString() ?? "0");
      const apparentBytes = Number(f[1]?.toString() ?? "0");
      store.add({ v: 1, id: ref, parent: this.parentRef, depth, base: this.o.base, createdAt, bytes, apparentBytes });
      const result: CheckpointResult = { ref, parentRef: this.parentRef, bytesAdded: bytes, durationMs: 0 };
      this.parentRef = ref;
      const remountError = f[2]?.toString() ?? "";
      if (remountError) {
        await this.destroyLocked();
        throw new SandboxError(`checkpoint ${ref} stored, but the sandbox could not continue: ${remountError}`);
      }
      result.durationMs = performance.now() - started;
      return result;
    });
  }

  openPty(_options: PtyOptions): Promise<PtySession> {
    return Promise.reject(new SandboxError("openPty is not implemented yet by the local driver"));
  }

  destroy(): Promise<void> {
    return this.lock.withExclusive(() => this.destroyLocked());
  }

  private async destroyLocked(): Promise<void> {
    if (this.gone) return;
    this.gone = true;
    try {
      await this.o.helper.call(Op.destroy, [this.id]);
    } finally {
      this.o.onGone(this);
      await rm(path.join(this.o.dataDir, "sandboxes", this.id), { recursive: true, force: true });
    }
  }
}
