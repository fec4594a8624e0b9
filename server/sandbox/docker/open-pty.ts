/** An interactive terminal: an exec with a TTY, whose raw (not multiplexed) stream is the terminal's bytes. */
import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import type Docker from "dockerode";
import type { PtyOptions, PtySession } from "../types";
import { execInspect } from "./docker-schemas";
import { EXEC_ID_ENV, killExecTree } from "./kill-exec-tree";
import { envList, rethrowGone, type ExecTarget } from "./run-exec";

const LOGIN_SHELL = ["/bin/sh", "-c", "if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi"];

export async function openPty(
  target: ExecTarget,
  options: PtyOptions & { cwd: string; env: Record<string, string> },
): Promise<PtySession> {
  const token = randomUUID();
  let exec: Docker.Exec;
  let stream: Duplex;
  try {
    exec = await target.container.exec({
      Cmd: options.command ?? LOGIN_SHELL,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: true,
      WorkingDir: options.cwd,
      Env: [...envList({ TERM: "xterm-256color", ...options.env }), `${EXEC_ID_ENV}=${token}`],
    });
    stream = await exec.start({ hijack: true, stdin: true, Tty: true });
  } catch (err) {
    rethrowGone(target.sandboxId, err);
  }
  // Resizing is only accepted once the exec runs; the first size must not wait for a user's resize.
  await exec.resize({ h: options.rows, w: options.cols }).catch(() => undefined);

  let exitCode: number | undefined;
  const exitListeners: ((code: number) => void)[] = [];
  // Kept paused until someone listens, so the first prompt is not lost.
  stream.pause();
  let ended = false;
  const finish = (): void => {
    if (ended) return;
    ended = true;
    void exec
      .inspect()
      .then((raw) => execInspect.parse(raw).ExitCode ?? -1)
      .catch(() => -1)
      .then((code) => {
        exitCode = code;
        for (const listener of exitListeners) listener(code);
      });
  };
  stream.once("end", finish);
  stream.once("close", finish);
  stream.once("error", finish);

  return {
    write(data) {
      if (!ended) stream.write(data);
    },
    resize(cols, rows) {
      void exec.resize({ h: rows, w: cols }).catch(() => undefined);
    },
    onData(listener) {
      stream.on("data", listener);
      stream.resume();
    },
    onExit(listener) {
      if (exitCode !== undefined) listener(exitCode);
      else exitListeners.push(listener);
    },
    pause() {
      stream.pause();
    },
    resume() {
      stream.resume();
    },
    kill() {
      void killExecTree(target.container, exec, token).finally(() => stream.destroy());
    },
  };
}
