/** One command in a running container through the engine's exec API: demuxed output with caps, stdin, timeout. */
import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import type Docker from "dockerode";
import { SandboxGoneError } from "../errors";
import type { ExecOptions, ExecResult } from "../types";
import { CappedBuffer } from "./capped-buffer";
import { StreamDemuxer } from "./demux-stream";
import { statusOf } from "./docker-client";
import { execInspect } from "./docker-schemas";
import { EXEC_ID_ENV, killExecTree } from "./kill-exec-tree";

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
export const DEFAULT_EXEC_TIMEOUT_MS = 10 * 60 * 1000;
/** How long a killed command's stream may take to close before we stop waiting for it. */
const KILL_GRACE_MS = 5000;
/** The engine records an exec's exit code a moment after its stream closes; this bounds the wait for it. */
const EXIT_CODE_WAIT_MS = 3000;

export interface ExecTarget {
  container: Docker.Container;
  sandboxId: string;
}

export interface ResolvedExecOptions extends ExecOptions {
  cwd: string;
  env: Record<string, string>;
}

export function envList(env: Record<string, string>): string[] {
  return Object.entries(env).map(([k, v]) => `${k}=${v}`);
}

/** Maps "no such container" / "container not running" to SandboxGoneError. */
export function rethrowGone(sandboxId: string, err: unknown): never {
  const status = statusOf(err);
  if (status === 404 || status === 409) throw new SandboxGoneError(sandboxId);
  if (status === 500 && err instanceof Error && /is not running|no such container/i.test(err.message)) {
    throw new SandboxGoneError(sandboxId);
  }
  throw err;
}

function streamClosed(stream: Duplex): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => resolve();
    stream.once("end", done);
    stream.once("close", done);
    stream.once("error", done);
  });
}

async function exitCodeOf(exec: Docker.Exec): Promise<number> {
  const deadline = Date.now() + EXIT_CODE_WAIT_MS;
  let delayMs = 5;
  for (;;) {
    const info = execInspect.parse(await exec.inspect());
    if (!info.Running && info.ExitCode !== null) return info.ExitCode;
    if (Date.now() > deadline) return -1;
    await new Promise((r) => setTimeout(r, delayMs));
    delayMs = Math.min(delayMs * 2, 100);
  }
}

export async function runExec(target: ExecTarget, argv: string[], options: ResolvedExecOptions): Promise<ExecResult> {
  const started = performance.now();
  const token = randomUUID();
  const stdin = options.stdin === undefined ? undefined : Buffer.from(options.stdin);
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;

  let exec: Docker.Exec;
  let stream: Duplex;
  try {
    exec = await target.container.exec({
      Cmd: argv,
      AttachStdin: stdin !== undefined,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      WorkingDir: options.cwd,
      Env: [...envList(options.env), `${EXEC_ID_ENV}=${token}`],
    });
    stream = await exec.start({ hijack: true, stdin: stdin !== undefined });
  } catch (err) {
    rethrowGone(target.sandboxId, err);
  }

  const stdout = new CappedBuffer(maxBytes);
  const stderr = new CappedBuffer(maxBytes);
  const demux = new StreamDemuxer((kind, data) => (kind === "stdout" ? stdout : stderr).push(data));
  stream.on("data", (chunk: Buffer) => demux.push(chunk));
  const closed = streamClosed(stream);
  // Half-close after stdin so the command sees EOF; the engine keeps sending its output.
  if (stdin !== undefined) stream.end(stdin);

  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    closed.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
  ]);
  clearTimeout(timer);

  if (timedOut) {
    await killExecTree(target.container, exec, token);
    let graceTimer: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise((r) => (graceTimer = setTimeout(r, KILL_GRACE_MS)))]);
    clearTimeout(graceTimer);
    stream.destroy();
  }

  let exitCode = -1;
  if (!timedOut) {
    try {
      exitCode = await exitCodeOf(exec);
    } catch (err) {
      rethrowGone(target.sandboxId, err);
    }
  }
  return {
    exitCode,
    stdout: stdout.text(),
    stderr: stderr.text(),
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
    timedOut,
    durationMs: performance.now() - started,
  };
}
