import { spawn, type ChildProcessByStdio } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { DriverUnavailableError, SandboxError } from "../errors";
import { decodeResponses, encodeRequest, type Arg, type OpCode, type Response } from "./protocol";

/**
 * Where `node scripts/build-native.mjs` puts the helper. Resolved from the working directory (the
 * server, the CLI and the tests all run from the repo root), not from this module's URL: Next.js
 * bundles server code, and a bundled module has no directory of its own.
 */
export const HELPER_PATH = path.join(process.cwd(), "server", "sandbox", "local", "native", "build", "sprout-sandboxd");

/** A failed helper operation; `errno` is the Linux errno it reported. */
export class HelperError extends SandboxError {
  override name = "HelperError";
  constructor(
    readonly errno: number,
    message: string,
  ) {
    super(message);
  }
}

export const ENOENT = 2;
export const ESRCH = 3;
export const EISDIR = 21;
export const ENOSPC = 28;
export const EDQUOT = 122;

export interface HelperOptions {
  dataDir: string;
  cgroupPrefix: string;
  diskReserveBytes: number;
  binaryPath?: string;
}

/** One long-lived sprout-sandboxd process; requests are multiplexed by id over its stdin/stdout. */
export class HelperClient {
  private child: ChildProcessByStdio<Writable, Readable, Readable> | null = null;
  private pending = new Map<number, { resolve: (r: Response) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private rest: Buffer = Buffer.alloc(0);
  private stderrTail = "";
  private exited: Error | null = null;

  constructor(private readonly options: HelperOptions) {}

  async start(): Promise<{ cgroups: boolean }> {
    const bin = this.options.binaryPath ?? HELPER_PATH;
    if (!existsSync(bin)) {
      throw new DriverUnavailableError(`local driver helper not built: run \`node scripts/build-native.mjs\` (needs gcc, make)`);
    }
    const child = spawn(bin, [this.options.dataDir, this.options.cgroupPrefix, String(this.options.diskReserveBytes)], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child = child;
    child.stdout.on("data", (chunk: Buffer) => this.onData(chunk));
    const forward = Boolean(process.env.SPROUT_SANDBOXD_TRACE);
    child.stderr.on("data", (chunk: Buffer) => {
      if (forward) process.stderr.write(chunk);
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-2000);
    });
    child.stdin.on("error", () => {});
    const exitedPromise = new Promise<never>((_, reject) => {
      child.on("exit", (code, signal) => {
        const err = new DriverUnavailableError(
          `local driver helper exited (${signal ?? code}): ${this.stderrTail.trim() || "no message"}`,
        );
        this.exited = err;
        for (const p of this.pending.values()) p.reject(err);
        this.pending.clear();
        reject(err);
      });
      child.on("error", (e) => reject(new DriverUnavailableError(`cannot start local driver helper: ${e.message}`)));
    });
    exitedPromise.catch(() => {});
    const r = await Promise.race([this.call(1, []), exitedPromise]);
    return { cgroups: r[0]?.toString() === "1" };
  }

  /** Sends one request; resolves with the response fields, rejects with HelperError on failure. */
  call(op: OpCode, args: readonly Arg[]): Promise<Buffer[]> {
    const child = this.child;
    if (this.exited) return Promise.reject(this.exited);
    if (!child) return Promise.reject(new SandboxError("local driver helper not started"));
    const id = this.nextId++;
    if (this.nextId > 0x7fffffff) this.nextId = 1;
    return new Promise<Buffer[]>((resolve, reject) => {
      this.pending.set(id, {
        resolve: (r) => {
          if (r.status === 0) resolve(r.fields);
          else reject(new HelperError(r.status, r.fields[0]?.toString() ?? `error ${r.status}`));
        },
        reject,
      });
      child.stdin.write(encodeRequest(id, op, args));
    });
  }

  private onData(chunk: Buffer): void {
    const buf = this.rest.length ? Buffer.concat([this.rest, chunk]) : chunk;
    const { responses, rest } = decodeResponses(buf);
    // Copy the tail: it may be a view of a large chunk we do not want to keep alive.
    this.rest = Buffer.from(rest);
    for (const r of responses) {
      const p = this.pending.get(r.id);
      if (!p) continue;
      this.pending.delete(r.id);
      p.resolve(r);
    }
  }

  /** Closing stdin makes the helper end every sandbox and exit. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || this.exited) return;
    const done = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await done;
    clearTimeout(timer);
  }
}
