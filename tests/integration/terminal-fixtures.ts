/** What the terminal tests of both drivers share: an output tail to wait on, a page's socket, a session. */
import { EventEmitter } from "node:events";
import type { CheckpointId, RolloutId, TaskId, TurnId } from "@/server/db/ids";
import type { PtySession, Sandbox } from "@/server/sandbox/types";
import { TerminalSession } from "@/server/terminal/terminal-session";

export type Tail = ReturnType<typeof tail>;

/** Waits for text in what a stream of output ends with (escape sequences left in). */
export function tail() {
  let text = "";
  const waiters = new Set<() => void>();
  return {
    push(chunk: Buffer | string): void {
      text = (text + chunk.toString()).slice(-16_000);
      for (const w of waiters) w();
    },
    get text() {
      return text;
    },
    waitFor(re: RegExp, timeoutMs = 15_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!re.test(text)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${re}; output ends with ${JSON.stringify(text.slice(-300))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

/** A pty's output as a tail. */
export function screen(pty: PtySession): Tail {
  const t = tail();
  pty.onData((c) => t.push(c));
  return t;
}

/** Every command line running in the sandbox: a test sends Ctrl-C only once its program runs, not while the shell still owns the terminal. */
export async function commandLines(s: Sandbox): Promise<string[]> {
  const r = await s.exec("for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done", { timeoutMs: 10_000 });
  return r.stdout.split("\n").map((l) => l.trim());
}

/** What a terminal session sees of a page's WebSocket: the JSON it was sent, and the output bytes. */
export class FakeSocket extends EventEmitter {
  readyState = 1;
  bufferedAmount = 0;
  binaryBytes = 0;
  readonly json: { type: string }[] = [];
  readonly output = tail();
  send(data: Buffer | string, _opts?: unknown, cb?: () => void): void {
    if (typeof data === "string") this.json.push(JSON.parse(data) as { type: string });
    else {
      this.binaryBytes += data.length;
      this.output.push(data);
    }
    cb?.();
  }
  close(): void {
    this.readyState = 3;
    this.emit("close");
  }
  pause(): void {}
  resume(): void {}
  message(m: unknown): void {
    this.emit("message", Buffer.from(JSON.stringify(m)), false);
  }
}

/** A terminal session on `sandbox`, as if opened on turn 3 of a task. */
export function terminalSession(sandbox: Sandbox, backend: "local" | "docker", workdir: string): TerminalSession {
  const origin = {
    turnId: "t" as TurnId,
    turnIndex: 3,
    taskId: "task" as TaskId,
    taskName: "demo",
    rolloutId: "r" as RolloutId,
    checkpoint: { id: "c" as CheckpointId, backend, ref: "x", state: "live" as const },
    workdir,
    env: {},
  };
  return new TerminalSession(origin, sandbox, { idleMs: 60_000, maxTerminals: 4, graceMs: 60_000 }, () => undefined);
}
