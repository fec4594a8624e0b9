import { randomBytes } from "node:crypto";
import type { WebSocket } from "ws";
import type { CheckpointId, RolloutId, TurnId } from "../db/ids";
import { log } from "../runtime/log";
import type { PtySession, Sandbox } from "../sandbox/types";
import { InputTranscript, plainText } from "./input-transcript";
import { RingBuffer } from "./ring-buffer";
import type { TerminalConfig } from "./terminal-config";
import { clientMessage, type ClientMessage, type ServerMessage, type TerminalInfo } from "./terminal-protocol";
import { finishHumanRollout, recordHumanTurn, type TerminalOrigin } from "./terminal-store";

const BATCH_MS = 16;
const BATCH_BYTES = 64 * 1024;
const RING_BYTES = 256 * 1024;
/** Output sent but not yet rendered by the page (or still in the socket) above which the shell is paused. */
const HIGH_WATER_BYTES = 1024 * 1024;
const LOW_WATER_BYTES = 256 * 1024;
/** Input the shell has not read yet above which the page's socket is no longer read. */
const INPUT_HIGH_WATER_BYTES = 256 * 1024;
const WS_OPEN = 1;

/** A live terminal: a sandbox restored from a turn's checkpoint, a shell in it, and at most one page attached. */
export class TerminalSession {
  readonly id = randomBytes(16).toString("hex");
  readonly createdAt = new Date();
  private pty: PtySession | null = null;
  private ptyPaused = false;
  private ws: WebSocket | null = null;
  private readonly ring = new RingBuffer(RING_BYTES);
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private flushTimer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  private lastFlushAt = 0;
  private sentBytes = 0;
  private ackedBytes = 0;
  private readonly transcript = new InputTranscript();
  private cols = 80;
  private rows = 24;
  private humanRolloutId: RolloutId | null = null;
  private parent: { turnId: TurnId; index: number; checkpointId: CheckpointId | null };
  private readonly saves: { turnId: string; index: number }[] = [];
  private lastSaveAt = performance.now();
  private saving = false;
  private heldInput = "";
  private ended = false;
  private graceTimer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  /** performance.now() of the startup steps, logged (debug) once the first output reached a page. */
  private readonly startup: { shell?: number; output?: number; attach?: number; sent?: number } = {};

  constructor(
    readonly origin: TerminalOrigin,
    private readonly sandbox: Sandbox,
    private readonly config: TerminalConfig,
    private readonly onEnd: (session: TerminalSession, reason: string) => void,
  ) {
    this.parent = { turnId: origin.turnId, index: origin.turnIndex, checkpointId: origin.checkpoint?.id ?? null };
  }

  /** Starts the shell; the session waits `graceMs` for a page to attach. */
  async start(): Promise<void> {
    await this.startShell();
    this.startGrace();
    this.touch();
  }

  info(): TerminalInfo {
    return {
      id: this.id,
      turnId: this.origin.turnId,
      turnIndex: this.origin.turnIndex,
      taskId: this.origin.taskId,
      taskName: this.origin.taskName,
      createdAt: this.createdAt.toISOString(),
      attached: this.ws !== null,
      humanRolloutId: this.humanRolloutId,
      saves: [...this.saves],
    };
  }

  /** A page (re)attaches: it gets the recent output, then the live stream. An earlier page is let go. */
  attach(ws: WebSocket): void {
    if (this.ended) {
      sendJson(ws, { type: "ended", reason: "This terminal has ended." });
      ws.close(4404, "ended");
      return;
    }
    const previous = this.ws;
    if (previous && previous !== ws) previous.close(4000, "attached in another page");
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = null;
    this.startup.attach ??= performance.now();
    this.ws = ws;
    this.sentBytes = 0;
    this.ackedBytes = 0;
    // What is pending is already in the ring, which is replayed whole.
    this.pending = [];
    this.pendingBytes = 0;
    const replay = this.ring.contents();
    sendJson(ws, { type: "ready", terminal: this.info(), replayBytes: replay.length });
    if (replay.length > 0) this.sendOutput(replay);
    ws.on("message", (data, isBinary) => {
      if (isBinary || this.ws !== ws) return;
      let parsed: ClientMessage;
      try {
        parsed = clientMessage.parse(JSON.parse(rawToString(data)));
      } catch {
        sendJson(ws, { type: "error", message: "unreadable control message" });
        return;
      }
      this.handle(parsed);
    });
    ws.on("close", () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.updateFlow();
      if (!this.ended) this.startGrace();
    });
    this.updateFlow();
  }

  private handle(m: ClientMessage): void {
    switch (m.type) {
      case "input":
        this.touch();
        this.transcript.feed(m.data);
        // Typed while a save restarts the shell: kept for the new one (bounded).
        if (!this.pty) this.heldInput = (this.heldInput + m.data).slice(-64 * 1024);
        else this.pty.write(m.data);
        this.limitInput();
        return;
      case "resize":
        this.cols = m.cols;
        this.rows = m.rows;
        this.pty?.resize(m.cols, m.rows);
        return;
      case "save":
        this.touch();
        void this.save();
        return;
      case "ping":
        if (this.ws) sendJson(this.ws, { type: "pong" });
        return;
      case "ack":
        this.ackedBytes = Math.min(this.sentBytes, Math.max(this.ackedBytes, m.bytes));
        this.updateFlow();
        return;
      case "close":
        void this.end("closed from the page");
        return;
    }
  }

  /** Checkpoint the sandbox and record it as a human turn after the previous one. */
  async save(): Promise<void> {
    if (this.saving || this.ended) return;
    this.saving = true;
    if (this.ws) sendJson(this.ws, { type: "saving" });
    this.flush();
    const commands = this.transcript.take();
    const outputTail = plainText(this.ring.contents()).split("\n").slice(-40).join("\n").slice(-4000);
    try {
      const checkpoint = await this.sandbox.checkpoint();
      const record = await recordHumanTurn({
        origin: this.origin,
        rolloutId: this.humanRolloutId,
        parent: this.parent,
        backend: this.sandbox.driver,
        checkpoint,
        commands,
        outputTail,
        elapsedMs: performance.now() - this.lastSaveAt,
      });
      this.lastSaveAt = performance.now();
      this.humanRolloutId = record.rolloutId;
      this.parent = { turnId: record.turnId, index: record.index, checkpointId: record.checkpointId };
      this.saves.push({ turnId: record.turnId, index: record.index });
      // The local driver's checkpoint ends every process of the sandbox (a frozen layer must not be
      // written to), this shell included: a new one starts on the saved filesystem.
      if (this.sandbox.driver === "local" && !this.ended) {
        this.pty?.kill();
        this.pty = null;
        this.notice(`saved as turn ${record.index}; saving stopped every process, a new shell starts on the saved files`);
        await this.startShell();
      } else {
        this.notice(`saved as turn ${record.index}`);
      }
      if (this.ws) sendJson(this.ws, { type: "saved", turnId: record.turnId, index: record.index, rolloutId: record.rolloutId });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log.warn("terminal save failed", { terminal: this.id, error: message });
      if (this.ws) sendJson(this.ws, { type: "error", message: `Saving failed: ${message}` });
      if (!this.pty && !this.ended) await this.end(`the sandbox could not continue after a failed save: ${message}`);
    } finally {
      this.saving = false;
    }
  }

  /** Ends the shell and destroys the sandbox; saved turns stay. Idempotent. */
  async end(reason: string): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    for (const t of [this.graceTimer, this.idleTimer]) if (t) clearTimeout(t);
    this.flush();
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      sendJson(ws, { type: "ended", reason });
      ws.close(1000, "ended");
    }
    this.pty?.kill();
    this.pty = null;
    this.onEnd(this, reason);
    await this.sandbox.destroy().catch((e: unknown) => log.warn("terminal sandbox destroy failed", { terminal: this.id, error: String(e) }));
    if (this.humanRolloutId) await finishHumanRollout(this.origin.taskId, this.humanRolloutId).catch(() => undefined);
  }

  private async startShell(): Promise<void> {
    const pty = await this.sandbox.openPty({ cols: this.cols, rows: this.rows, cwd: this.origin.workdir });
    this.startup.shell ??= performance.now();
    this.pty = pty;
    this.ptyPaused = false;
    if (this.heldInput) pty.write(this.heldInput);
    this.heldInput = "";
    pty.onData((chunk) => {
      if (this.pty === pty) this.onOutput(chunk);
    });
    pty.onExit((code) => {
      if (this.pty !== pty || this.saving) return;
      this.flush();
      if (this.ws) sendJson(this.ws, { type: "exit", code });
      void this.end(`the shell exited (code ${code})`);
    });
    this.updateFlow();
  }

  private notice(text: string): void {
    this.onOutput(Buffer.from(`\r\n\x1b[2m[${text}]\x1b[0m\r\n`));
  }

  private onOutput(chunk: Buffer): void {
    this.startup.output ??= performance.now();
    this.ring.write(chunk);
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= BATCH_BYTES) return this.flush();
    if (this.flushTimer) return;
    // The first output after a quiet spell (a keystroke's echo) goes out at once; a stream is batched.
    const since = performance.now() - this.lastFlushAt;
    this.flushTimer = since >= BATCH_MS ? setImmediate(() => this.flush()) : setTimeout(() => this.flush(), BATCH_MS - since);
  }

  private flush(): void {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer as NodeJS.Timeout);
      clearImmediate(this.flushTimer as NodeJS.Immediate);
      this.flushTimer = null;
    }
    if (this.pendingBytes === 0) return;
    const data = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.lastFlushAt = performance.now();
    if (this.ws?.readyState === WS_OPEN) this.sendOutput(data);
  }

  private sendOutput(data: Buffer): void {
    const ws = this.ws;
    if (!ws) return;
    this.sentBytes += data.length;
    if (this.startup.sent === undefined) {
      const s = (this.startup.sent = performance.now());
      const since = (t?: number) => (t === undefined ? null : Math.round((s - t) * 10) / 10);
      log.debug("terminal first output sent", { terminal: this.id.slice(0, 8), msSinceShell: since(this.startup.shell), msSinceOutput: since(this.startup.output), msSinceAttach: since(this.startup.attach) });
    }
    ws.send(data, { binary: true }, () => this.updateFlow());
    this.updateFlow();
  }

  /** Pauses the shell's output while the page is behind (or gone); resumes once it caught up. */
  private updateFlow(): void {
    const pty = this.pty;
    if (!pty) return;
    const ws = this.ws;
    const open = ws?.readyState === WS_OPEN;
    const behind = (ws?.bufferedAmount ?? 0) + (this.sentBytes - this.ackedBytes);
    if (!this.ptyPaused && (!open || behind > HIGH_WATER_BYTES)) {
      pty.pause();
      this.ptyPaused = true;
    } else if (this.ptyPaused && open && behind < LOW_WATER_BYTES) {
      pty.resume();
      this.ptyPaused = false;
    }
  }

  /** Stops reading the page's socket while the shell is not reading its input. */
  private limitInput(): void {
    const ws = this.ws;
    const queued = inputQueued(this.pty);
    if (!ws || queued < INPUT_HIGH_WATER_BYTES) return;
    ws.pause();
    const wait = setInterval(() => {
      if (this.ws !== ws || this.ended || inputQueued(this.pty) < INPUT_HIGH_WATER_BYTES / 4) {
        clearInterval(wait);
        ws.resume();
      }
    }, 20);
  }

  private startGrace(): void {
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = setTimeout(() => void this.end("no page was attached"), this.config.graceMs);
    this.graceTimer.unref();
  }

  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const idle = this.config.idleMs >= 120_000 ? `${Math.round(this.config.idleMs / 60_000)} min` : `${Math.round(this.config.idleMs / 1000)} s`;
    this.idleTimer = setTimeout(() => void this.end(`closed after ${idle} without input`), this.config.idleMs);
    this.idleTimer.unref();
  }
}

function inputQueued(pty: PtySession | null): number {
  const n = pty && "writableLength" in pty ? (pty as { writableLength: unknown }).writableLength : 0;
  return typeof n === "number" ? n : 0;
}

function sendJson(ws: WebSocket, message: ServerMessage): void {
  if (ws.readyState === WS_OPEN) ws.send(JSON.stringify(message));
}

function rawToString(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString();
  return Buffer.isBuffer(data) ? data.toString() : Buffer.from(data).toString();
}
