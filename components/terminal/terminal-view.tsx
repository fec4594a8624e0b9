"use client";

import { useEffect, useRef, useState } from "react";
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import type { ServerMessage, TerminalInfo } from "@/server/terminal/terminal-protocol";
import { TerminalConnection, type ConnectionState, type ConnectionTarget } from "./terminal-connection";
import { markOpenStep, registerDebugHandle, type TerminalDebugHandle } from "./terminal-debug";
import { terminalTheme } from "./terminal-theme";

const WRITE_SLICE_BYTES = 16 * 1024;

export interface TerminalViewProps {
  /** A running terminal to attach to, or a turn whose checkpoint a new terminal opens on. Read once. */
  target: ConnectionTarget;
  active: boolean;
  /** What the terminal is, from the server on each attach (the first names a terminal this view opened). */
  onInfo: (info: TerminalInfo) => void;
  /** Opening on a turn failed: the server's sentence. */
  onRefused: (message: string) => void;
  /** The server forgot this terminal or it ended: the tab may be closed. */
  onClose: () => void;
}

/** One terminal: its title, actions, status line and the xterm.js screen. */
export function TerminalView({ target, active, onInfo, onRefused, onClose }: TerminalViewProps) {
  const screenRef = useRef<HTMLDivElement>(null);
  const targetRef = useRef(target);
  const callbacksRef = useRef({ onInfo, onRefused });
  const connectionRef = useRef<TerminalConnection | null>(null);
  const fitRef = useRef<() => void>(() => undefined);
  const [sessionId, setSessionId] = useState<string | null>("session" in target ? target.session : null);
  const [state, setState] = useState<ConnectionState>({ kind: "connecting" });
  const [notice, setNotice] = useState<{ tone: "info" | "error"; text: string } | null>(null);
  const [saving, setSaving] = useState(false);
  const [saves, setSaves] = useState<number[]>([]);

  useEffect(() => {
    callbacksRef.current = { onInfo, onRefused };
  });

  useEffect(() => {
    const el = screenRef.current;
    if (!el) return;
    markOpenStep("view-mount");
    const term = new Terminal({
      fontFamily: 'ui-monospace, "SFMono-Regular", "JetBrains Mono", Menlo, Consolas, monospace',
      fontSize: 13,
      cursorBlink: true,
      scrollback: 5000,
      theme: terminalTheme(),
    });
    let written = false;
    let firstOutput = true;
    let unregister = (): void => undefined;
    const debugHandle: TerminalDebugHandle = {
      drop: () => connection.drop(),
      attaches: () => connection.attaches,
      text: () => {
        const buf = term.buffer.active;
        const lines: string[] = [];
        for (let i = 0; i < buf.length; i++) lines.push(buf.getLine(i)?.translateToString(true) ?? "");
        return lines.join("\n");
      },
    };
    const onMessage = (m: ServerMessage) => {
      if (m.type === "ready") {
        setSessionId(m.terminal.id);
        setSaves(m.terminal.saves.map((x) => x.index));
        unregister();
        unregister = registerDebugHandle(m.terminal.id, debugHandle);
        callbacksRef.current.onInfo(m.terminal);
      }
      if (m.type === "saving") setSaving(true);
      if (m.type === "saved") {
        setSaving(false);
        setSaves((list) => [...list, m.index]);
        setNotice({ tone: "info", text: `Saved as turn ${m.index} of a human branch. An agent branch can start from it in the task tree.` });
      }
      if (m.type === "error") {
        setSaving(false);
        setNotice({ tone: "error", text: m.message });
      }
    };
    const connection = new TerminalConnection(targetRef.current, {
      output: (bytes, done) => {
        written = true;
        if (firstOutput) {
          firstOutput = false;
          markOpenStep("first-output");
          term.write("", () => requestAnimationFrame(() => markOpenStep("first-frame")));
        }
        // xterm.js yields to the page between writes, not within one: small slices keep each task short.
        for (let i = 0; i < bytes.length; i += WRITE_SLICE_BYTES) {
          const end = Math.min(bytes.length, i + WRITE_SLICE_BYTES);
          term.write(bytes.subarray(i, end), end === bytes.length ? done : undefined);
        }
      },
      reset: () => {
        // A reattach replays the recent output onto a clean screen; a first attach has nothing to
        // clear (and resetting a fresh xterm.js costs a frame).
        if (written) term.reset();
        written = false;
        fitRef.current();
      },
      state: setState,
      message: onMessage,
      refused: (message) => callbacksRef.current.onRefused(message),
    });
    connectionRef.current = connection;
    // The socket first: the server restores the checkpoint while xterm.js sets the screen up (fonts
    // measured, DOM built), instead of one after the other.
    connection.connect();
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(el);
    markOpenStep("xterm-open");
    fitRef.current = () => {
      if (el.offsetParent === null) return;
      fit.fit();
      connection.send({ type: "resize", cols: term.cols, rows: term.rows });
    };
    fitRef.current();
    const input = term.onData((data) => connection.send({ type: "input", data }));
    const observer = new ResizeObserver(() => fitRef.current());
    observer.observe(el);
    return () => {
      unregister();
      observer.disconnect();
      input.dispose();
      connection.dispose();
      term.dispose();
      connectionRef.current = null;
      fitRef.current = () => undefined;
    };
  }, []);

  useEffect(() => {
    if (active) fitRef.current();
  }, [active]);

  const terminal = state.kind === "open" ? state.terminal : null;
  const restoring = state.kind === "connecting" && !sessionId;
  const title = terminal ? `${terminal.taskName} · checkpoint of turn ${terminal.turnIndex}` : restoring ? "Restoring the checkpoint into a new sandbox…" : "Terminal";

  return (
    <section className={active ? "flex min-h-0 flex-1 flex-col" : "hidden"} data-terminal={sessionId ?? undefined} aria-label={title}>
      <div className="flex items-center gap-3 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <h2 className="truncate font-medium" data-testid="terminal-title">
          {title}
        </h2>
        <StatusDot state={state} restoring={restoring} />
        <div className="ml-auto flex gap-2">
          <button
            type="button"
            className="rounded border border-zinc-300 px-2.5 py-1 hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
            disabled={state.kind !== "open" || saving}
            onClick={() => {
              setNotice(null);
              connectionRef.current?.send({ type: "save" });
            }}
            title="Checkpoint this sandbox's files and record them as a human turn. Running programs are stopped."
          >
            {saving ? "Saving…" : "Save as checkpoint"}
          </button>
          <button
            type="button"
            className="rounded border border-zinc-300 px-2.5 py-1 hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
            disabled={!sessionId}
            onClick={() => {
              connectionRef.current?.send({ type: "close" });
              onClose();
            }}
            title="End the shell and discard unsaved changes"
          >
            Close
          </button>
        </div>
      </div>
      {state.kind === "reconnecting" && <Banner tone="warn">Disconnected from the server. Reconnecting (attempt {state.attempt})… The shell keeps running for 30 s.</Banner>}
      {state.kind === "ended" && <Banner tone="error">{state.reason} Open a new terminal from a turn in the task tree to continue.</Banner>}
      {notice && <Banner tone={notice.tone === "error" ? "error" : "info"}>{notice.text}</Banner>}
      {terminal && saves.length > 0 && (
        <p className="px-3 py-1 text-xs text-zinc-500">
          Saved turns: {saves.join(", ")} ·{" "}
          <a className="underline" href={`/tasks/${encodeURIComponent(terminal.taskId)}`}>
            open the task tree
          </a>
        </p>
      )}
      <div ref={screenRef} className="min-h-0 flex-1 bg-[#1e1e1e] p-1 dark:bg-[#1e1e1e]" data-testid="terminal-screen" />
    </section>
  );
}

function StatusDot({ state, restoring }: { state: ConnectionState; restoring: boolean }) {
  const label = restoring ? "restoring" : { connecting: "connecting", open: "connected", reconnecting: "reconnecting", ended: "ended" }[state.kind];
  const color = { connecting: "bg-zinc-400", open: "bg-[var(--color-resolved)]", reconnecting: "bg-[var(--color-interrupted)]", ended: "bg-[var(--color-failed)]" }[state.kind];
  return (
    <span className="flex items-center gap-1.5 text-xs text-zinc-500" data-testid="terminal-status" data-state={state.kind}>
      <span className={`inline-block h-2 w-2 rounded-full ${color}`} aria-hidden />
      {label}
    </span>
  );
}

function Banner({ tone, children }: { tone: "info" | "warn" | "error"; children: React.ReactNode }) {
  const cls = {
    info: "border-blue-200 bg-blue-50 text-blue-900 dark:border-blue-900 dark:bg-blue-950 dark:text-blue-100",
    warn: "border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900 dark:bg-amber-950 dark:text-amber-100",
    error: "border-red-200 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100",
  }[tone];
  return (
    <div role={tone === "error" ? "alert" : "status"} className={`border-b px-3 py-1.5 text-sm ${cls}`}>
      {children}
    </div>
  );
}
