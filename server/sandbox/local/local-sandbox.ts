import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ResourceExhaustedError, SandboxError, SandboxGoneError } from "../errors";
import type { CheckpointResult, ExecOptions, ExecResult, PtyOptions, PtySession, Sandbox, SandboxLimits, WriteFileOptions } from "../types";
import { EISDIR, ENOENT, ENOSPC, EDQUOT, ESRCH, HelperError, type HelperClient } from "./helper-client";
import type { BaseInfo } from "./layer-meta";
import { layerDir, type LayerStore } from "./layer-store";
import { Op } from "./protocol";
import { RwLock } from "./rw-lock";

const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const LOGIN_SHELL = ["/bin/sh", "-c", "if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi"];

// The helper's terminal ops (native/sandboxd.c); protocol.ts's Op table does not list them yet.
const PtyOp = { open: Op.pty, resize: Op.ptyResize, kill: Op.ptyKill };

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
  /** A checkpoint sent behind the last command (exec with checkpointAfter), claimed by the next checkpoint(). */
  private armed: Promise<CheckpointResult> | null = null;

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
    if (options.checkpointAfter) return this.thenCheckpoint(() => this.execLocked(command, options));
    this.disarm();
    return this.lock.withShared(() => this.execLocked(command, options));
  }

  /**
   * The operation and the checkpoint that follows it go to the helper back to back, and it starts
   * the checkpoint the moment the operation ends (a command: when it exits; a write: next in line),
   * without a round trip to us in between. checkpoint() returns that one. The operation's result
   * resolves first; the sandbox stays locked until the checkpoint is done.
   */
  private thenCheckpoint<T>(operation: () => Promise<T>): Promise<T> {
    this.disarm();
    let settle!: { resolve: (r: T) => void; reject: (e: unknown) => void };
    const result = new Promise<T>((resolve, reject) => (settle = { resolve, reject }));
    const checkpoint = this.lock.withExclusive(async () => {
      const done = operation();
      let ended = 0;
      done.then(settle.resolve, settle.reject).finally(() => (ended = performance.now()));
      // Its duration counts from the operation's result, what the caller waits for after that (both
      // answers often arrive together, before `ended` is set).
      const frozen = this.checkpointLocked(() => ended || performance.now());
      frozen.catch(() => undefined);
      await done.catch(() => undefined);
      return frozen;
    });
    checkpoint.catch(() => undefined);
    this.armed = checkpoint;
    return result;
  }

  /** A pipelined checkpoint stands for the state right after its command; any later operation makes it stale. */
  private disarm(): void {
    this.armed = null;
  }

  private async execLocked(command: string | string[], options: ExecOptions): Promise<ExecResult> {
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
  }

  readFile(p: string): Promise<Buffer> {
    this.disarm();
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

  writeFile(p: string, data: string | Buffer, options: WriteFileOptions = {}): Promise<void> {
    if (options.checkpointAfter) return this.thenCheckpoint(() => this.writeFileLocked(p, data, options));
    this.disarm();
    return this.lock.withShared(() => this.writeFileLocked(p, data, options));
  }

  private async writeFileLocked(p: string, data: string | Buffer, options: WriteFileOptions): Promise<void> {
    this.check();
    try {
      await this.o.helper.call(Op.writeFile, [this.id, this.resolvePath(p), Buffer.from(data), options.mode ?? ""]);
    } catch (e) {
      if (e instanceof HelperError && (e.errno === ENOSPC || e.errno === EDQUOT)) throw new ResourceExhaustedError(e.message);
      return this.mapError(e);
    }
  }

  /** Runs processes are stopped: a checkpoint's live sandbox and a restore of it are the same. */
  checkpoint(): Promise<CheckpointResult> {
    const armed = this.armed;
    this.disarm();
    return armed ?? this.lock.withExclusive(() => this.checkpointLocked());
  }

  private async checkpointLocked(since: () => number = () => 0): Promise<CheckpointResult> {
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
    result.durationMs = performance.now() - Math.max(started, since());
    return result;
  }

  /**
   * The shell is forked by the sandbox's init like any command (same namespaces, cgroups, chroot,
   * capabilities), on a pty of the sandbox's own devpts. Its bytes reach us over a unix socket the
   * helper's relay connects to: pausing that socket stops the relay, which stops the shell.
   * A checkpoint ends every process of the sandbox, this shell included.
   */
  openPty(options: PtyOptions): Promise<PtySession> {
    this.disarm();
    return this.lock.withShared(async () => {
      this.check();
      const argv = options.command ?? LOGIN_SHELL;
      if (argv.length === 0) throw new SandboxError("empty command");
      const env = { PATH: DEFAULT_PATH, HOME: "/root", LANG: "C.UTF-8", TERM: "xterm-256color", ...this.o.env, ...options.env };
      const envBlock = Object.entries(env).map(([k, v]) => `${k}=${v}\0`).join("");
      const cwd = this.resolvePath(options.cwd ?? this.o.workdir);
      // A private dir (0700) keeps other local users from connecting to the terminal first.
      const dir = await mkdtemp(path.join(os.tmpdir(), "sprout-pty-"));
      const socketPath = path.join(dir, "s");
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(socketPath, () => resolve());
      });
      const connected = new Promise<net.Socket>((resolve) => server.once("connection", resolve));
      const ptyId = `${this.id}-${randomBytes(6).toString("hex")}`;
      const exited = this.o.helper.call(PtyOp.open, [
        ptyId,
        this.id,
        argv.map((a) => `${a}\0`).join(""),
        envBlock,
        cwd,
        socketPath,
        clampSize(options.cols, 80),
        clampSize(options.rows, 24),
        this.o.limits.cpuSeconds,
        this.o.maxFileBytes,
        this.o.limits.memoryBytes,
        this.o.limits.pids,
      ]);
      let socket: net.Socket;
      try {
        socket = await Promise.race([connected, exited.then(() => Promise.reject(new SandboxError("the terminal ended before it started")))]);
      } catch (e) {
        return this.mapError(e);
      } finally {
        server.close();
        void rm(dir, { recursive: true, force: true });
      }
      return new LocalPty(socket, exited, ptyId, this.o.helper);
    });
  }

  destroy(): Promise<void> {
    this.disarm();
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

function clampSize(n: number, fallback: number): number {
  return Number.isFinite(n) && n >= 1 ? Math.min(Math.round(n), 1000) : fallback;
}

/** A pty of the local driver: bytes over the relay's socket, control through the helper. */
class LocalPty implements PtySession {
  private exitCode: number | undefined;
  private readonly exitListeners: ((code: number) => void)[] = [];
  private ended = false;

  constructor(
    private readonly socket: net.Socket,
    exited: Promise<Buffer[]>,
    private readonly ptyId: string,
    private readonly helper: HelperClient,
  ) {
    // Paused until someone listens, so the first prompt is not lost.
    socket.pause();
    socket.on("error", () => undefined);
    let socketClosed = false;
    let code: number | null = null;
    const settle = (): void => {
      if (code === null || !socketClosed || this.exitCode !== undefined) return;
      this.exitCode = code;
      for (const l of this.exitListeners) l(code);
    };
    socket.once("close", () => {
      socketClosed = true;
      this.ended = true;
      settle();
    });
    void exited
      .then((f) => Number(f[0]?.toString() ?? "-1"))
      .catch(() => -1)
      .then((c) => {
        code = c;
        // Output still in flight arrives first; a background process holding the tty open must not keep it.
        setTimeout(() => socket.destroy(), 500).unref();
        settle();
      });
  }

  write(data: string | Buffer): void {
    if (!this.ended) this.socket.write(data);
  }

  resize(cols: number, rows: number): void {
    if (this.ended) return;
    this.helper.call(PtyOp.resize, [this.ptyId, clampSize(cols, 80), clampSize(rows, 24)]).catch(() => undefined);
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.socket.on("data", listener);
    this.socket.resume();
  }

  onExit(listener: (exitCode: number) => void): void {
    if (this.exitCode !== undefined) listener(this.exitCode);
    else this.exitListeners.push(listener);
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  /** Whether written input is waiting for the terminal (for input flow control). */
  get writableLength(): number {
    return this.socket.writableLength;
  }

  kill(): void {
    this.helper.call(PtyOp.kill, [this.ptyId]).catch(() => undefined);
    this.socket.destroy();
  }
}
