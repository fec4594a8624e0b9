"use client";

import { useEffect, useRef, useState } from "react";
import { useRouter, useSearchParams } from "next/navigation";
import type { TerminalInfo } from "@/server/terminal/terminal-protocol";
import { markOpenStep } from "./terminal-debug";
import { readTabs, writeTabs, type TerminalTab } from "./terminal-tabs-store";
import { TerminalView } from "./terminal-view";

/** A tab of the page: a terminal, or one being opened on `turnId` (its id comes with its first `ready`). */
interface PageTab {
  key: string;
  sessionId: string | null;
  turnId?: string;
  label?: string;
}

let opened = 0;

/** Terminals in tabs. `?turn=<turnId>` opens a new one on that turn's checkpoint. Rendered in the browser only. */
export function TerminalsPage() {
  const router = useRouter();
  const turnParam = useSearchParams().get("turn");
  const [tabs, setTabs] = useState<PageTab[]>(() => readTabs().map((t) => ({ key: t.sessionId, ...t })));
  const [active, setActive] = useState<string | null>(() => tabs.at(-1)?.key ?? null);
  const [error, setError] = useState<string | null>(null);
  const [turnInput, setTurnInput] = useState("");
  const consumed = useRef<string | null>(null);

  useEffect(() => writeTabs(tabs.flatMap((t): TerminalTab[] => (t.sessionId ? [{ sessionId: t.sessionId, label: t.label }] : []))), [tabs]);

  // The tab's view opens the terminal over its own socket (one round trip, not a POST then a
  // socket) and sets up its screen while the server restores the checkpoint.
  const openTurn = (turnId: string) => {
    setError(null);
    markOpenStep("submit");
    const key = `opening-${++opened}`;
    setTabs((t) => [...t, { key, sessionId: null, turnId }]);
    setActive(key);
  };

  const refused = (key: string, message: string) => {
    setTabs((t) => t.filter((x) => x.key !== key));
    setError(message);
  };

  useEffect(() => {
    if (!turnParam || consumed.current === turnParam) return;
    consumed.current = turnParam;
    // Drop the parameter so that a reload reattaches instead of opening another terminal.
    router.replace("/terminals");
    openTurn(turnParam);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per ?turn= value
  }, [turnParam]);

  const closeTab = (key: string) => setTabs((t) => t.filter((x) => x.key !== key));
  // A closed (or failed) tab's neighbour to the left takes over.
  const shown = tabs.some((t) => t.key === active) ? active : (tabs.at(-1)?.key ?? null);

  const setInfo = (key: string, info: TerminalInfo) => {
    const label = `${info.taskName} · turn ${info.turnIndex}`;
    setTabs((t) => (t.some((x) => x.key === key && (x.label !== label || x.sessionId !== info.id)) ? t.map((x) => (x.key === key ? { ...x, sessionId: info.id, label } : x)) : t));
  };
  const opening = tabs.some((t) => !t.sessionId);

  return (
    <main className="flex min-h-0 flex-1 flex-col" style={{ height: "calc(100vh - 2.75rem)" }}>
      <div className="flex items-center gap-1 border-b border-zinc-200 px-2 pt-1.5 dark:border-zinc-800" role="tablist">
        {tabs.map((t) => (
          <div
            key={t.key}
            className={`flex items-center gap-1 rounded-t border border-b-0 px-2 py-1 text-xs ${
              t.key === shown ? "border-zinc-300 bg-white font-medium dark:border-zinc-700 dark:bg-zinc-900" : "border-transparent text-zinc-500"
            }`}
          >
            <button type="button" role="tab" aria-selected={t.key === shown} onClick={() => setActive(t.key)} className="font-mono">
              {t.label ?? (t.sessionId ? "Terminal" : "Opening…")}
            </button>
            <button
              type="button"
              aria-label="Hide this tab"
              disabled={!t.sessionId}
              className="px-1 text-zinc-400 hover:text-zinc-900 disabled:opacity-50 dark:hover:text-zinc-100"
              onClick={() => closeTab(t.key)}
            >
              ×
            </button>
          </div>
        ))}
        <form
          className="ml-auto flex items-center gap-2 pb-1 text-xs"
          onSubmit={(e) => {
            e.preventDefault();
            if (turnInput.trim()) openTurn(turnInput.trim());
          }}
        >
          <label htmlFor="terminal-turn" className="text-zinc-500">
            Turn id
          </label>
          <input
            id="terminal-turn"
            value={turnInput}
            onChange={(e) => setTurnInput(e.target.value)}
            className="w-56 rounded border border-zinc-300 bg-transparent px-2 py-1 font-mono dark:border-zinc-700"
            placeholder="from the inspector"
          />
          <button type="submit" disabled={opening} className="rounded border border-zinc-300 px-2 py-1 hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800">
            {opening ? "Opening…" : "Open terminal"}
          </button>
        </form>
      </div>
      {error && (
        <div role="alert" className="border-b border-red-200 bg-red-50 px-3 py-2 text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100">
          {error}
        </div>
      )}
      {tabs.length === 0 && !error && (
        <p className="px-3 py-6 text-zinc-500">
          No terminal is open. In a task tree, select a turn and press <em>Open terminal here</em>, or paste a turn id above.
        </p>
      )}
      {tabs.map((t) => (
        <TerminalView
          key={t.key}
          target={t.sessionId ? { session: t.sessionId } : { turn: t.turnId ?? "" }}
          active={t.key === shown}
          onInfo={(info) => setInfo(t.key, info)}
          onRefused={(message) => refused(t.key, message)}
          onClose={() => closeTab(t.key)}
        />
      ))}
    </main>
  );
}
