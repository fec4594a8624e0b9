import type { ServerMessage, TerminalInfo } from "@/server/terminal/terminal-protocol";
import { markOpenStep } from "./terminal-debug";

/** What the page shows about one terminal's link to the server. */
export type ConnectionState =
  | { kind: "connecting" }
  | { kind: "open"; terminal: TerminalInfo }
  | { kind: "reconnecting"; attempt: number }
  | { kind: "ended"; reason: string };

export interface ConnectionHandlers {
  /** Output bytes; call `done` once they are rendered (flow control). */
  output(bytes: Uint8Array, done: () => void): void;
  /** A (re)attach: the screen should be cleared, the replay follows. */
  reset(): void;
  state(state: ConnectionState): void;
  message(message: ServerMessage): void;
  /** A terminal opened by this connection (`{ turn }`) could not be: the server's sentence. */
  refused(message: string): void;
}

/** What a connection attaches to: a running terminal, or a new one on a turn's checkpoint. */
export type ConnectionTarget = { session: string } | { turn: string };

const ACK_EVERY_BYTES = 128 * 1024;
const ACK_DELAY_MS = 40;
/** Give up after about the server's grace period. */
const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 3000, 5000, 5000, 5000, 5000, 5000];
/** Keystrokes typed while reconnecting are sent once the terminal is back, up to this many characters. */
const HELD_INPUT_CHARS = 64 * 1024;

/**
 * One terminal's WebSocket: JSON control out, binary output in, acknowledgements of rendered
 * output, and reattaching after a dropped connection (the server keeps the shell for a grace period).
 * Opened on a turn, the first connection also creates the terminal; reattaching uses its id.
 */
export class TerminalConnection {
  /** Known from the start, or from the first `ready` of a connection that opened the terminal. */
  sessionId: string | null;
  private ws: WebSocket | null = null;
  private processed = 0;
  private acked = 0;
  private ackTimer: ReturnType<typeof setTimeout> | null = null;
  private attempt = 0;
  private closedByUs = false;
  private ended = false;
  private attached = false;
  private heldInput = "";
  /** How many times a page's socket got `ready` (the first attach and every reattach). */
  attaches = 0;

  constructor(
    private readonly target: ConnectionTarget,
    private readonly handlers: ConnectionHandlers,
  ) {
    this.sessionId = "session" in target ? target.session : null;
  }

  connect(): void {
    if (this.ended) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const query = this.sessionId ? `session=${encodeURIComponent(this.sessionId)}` : "turn" in this.target ? `turn=${encodeURIComponent(this.target.turn)}` : "";
    const ws = new WebSocket(`${proto}//${location.host}/ws/terminal?${query}`);
    ws.binaryType = "arraybuffer";
    markOpenStep("ws-connect");
    ws.onopen = () => markOpenStep("ws-open");
    this.ws = ws;
    this.closedByUs = false;
    if (this.attempt === 0) this.handlers.state({ kind: "connecting" });
    ws.onmessage = (e: MessageEvent<ArrayBuffer | string>) => {
      if (typeof e.data !== "string") {
        const bytes = new Uint8Array(e.data);
        this.handlers.output(bytes, () => this.rendered(ws, bytes.length));
        return;
      }
      const m = JSON.parse(e.data) as ServerMessage;
      if (m.type === "ready") {
        markOpenStep("ready");
        this.sessionId = m.terminal.id;
        this.attempt = 0;
        this.processed = 0;
        this.acked = 0;
        this.attached = true;
        this.attaches += 1;
        this.handlers.reset();
        this.handlers.state({ kind: "open", terminal: m.terminal });
        if (this.heldInput) {
          ws.send(JSON.stringify({ type: "input", data: this.heldInput }));
          this.heldInput = "";
        }
      } else if (m.type === "ended") {
        this.ended = true;
        this.handlers.state({ kind: "ended", reason: m.reason });
      } else if (m.type === "refused") {
        this.ended = true;
        this.handlers.refused(m.message);
      }
      this.handlers.message(m);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.attached = false;
      if (this.ended || this.closedByUs) return;
      if (!this.sessionId) {
        // Lost while the server was opening the terminal: retrying would open a second one.
        this.ended = true;
        this.handlers.refused("The connection to the server was lost while the terminal was opening. Try again.");
        return;
      }
      if (e.code === 4404 || e.code === 4000) {
        this.ended = true;
        this.handlers.state({ kind: "ended", reason: e.code === 4000 ? "This terminal was opened in another page." : "This terminal has ended." });
        return;
      }
      const delay = RETRY_DELAYS_MS[this.attempt];
      if (delay === undefined) {
        this.ended = true;
        this.handlers.state({ kind: "ended", reason: "The connection to the server was lost and could not be restored." });
        return;
      }
      this.attempt += 1;
      this.handlers.state({ kind: "reconnecting", attempt: this.attempt });
      setTimeout(() => this.connect(), delay);
    };
  }

  send(message: { type: "input"; data: string } | { type: "resize"; cols: number; rows: number } | { type: "save" } | { type: "close" } | { type: "ping" }): void {
    if (this.attached && this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
    else if (message.type === "input" && !this.ended) this.heldInput = (this.heldInput + message.data).slice(-HELD_INPUT_CHARS);
  }

  /** Drops the connection as a network failure would (the terminal reattaches). */
  drop(): void {
    this.ws?.close(4100, "dropped");
  }

  /** Leaves the terminal running on the server for its grace period (page closing or tab hidden). */
  dispose(): void {
    this.closedByUs = true;
    this.ended = true;
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ws?.close(1000, "page closed");
    this.ws = null;
  }

  private rendered(ws: WebSocket, n: number): void {
    if (ws !== this.ws) return;
    this.processed += n;
    if (this.processed - this.acked >= ACK_EVERY_BYTES) return this.ack();
    this.ackTimer ??= setTimeout(() => this.ack(), ACK_DELAY_MS);
  }

  private ack(): void {
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = null;
    if (this.processed === this.acked || this.ws?.readyState !== WebSocket.OPEN) return;
    this.acked = this.processed;
    this.ws.send(JSON.stringify({ type: "ack", bytes: this.processed }));
  }
}
