"use client";

import { useEffect, useRef, useState } from "react";
import { useRouter, useSearchParams } from "next/navigation";
import { ApiError } from "../queries/fetch-json";
import { useOpenTerminal, useTerminals } from "./terminal-queries";
import { readTabs, writeTabs, type TerminalTab } from "./terminal-tabs-store";
import { TerminalView } from "./terminal-view";

/** Terminals in tabs. `?turn=<turnId>` opens a new one on that turn's checkpoint. Rendered in the browser only. */
export function TerminalsPage() {
  const router = useRouter();
  const turnParam = useSearchParams().get("turn");
  const [tabs, setTabs] = useState<TerminalTab[]>(() => readTabs());
  const [active, setActive] = useState<string | null>(() => tabs.at(-1)?.sessionId ?? null);
  const [error, setError] = useState<string | null>(null);
  const [turnInput, setTurnInput] = useState("");
  const open = useOpenTerminal();
  const list = useTerminals();
  const consumed = useRef<string | null>(null);

  useEffect(() => writeTabs(tabs), [tabs]);

  const openTurn = (turnId: string) => {
    setError(null);
    open.mutate(turnId, {
      onSuccess: ({ sessionId }) => {
        setTabs((t) => [...t, { sessionId }]);
        setActive(sessionId);
      },
      onError: (e) => setError(e instanceof ApiError ? e.message : `Could not open a terminal: ${e.message}`),
    });
  };

  useEffect(() => {
    if (!turnParam || consumed.current === turnParam) return;
    consumed.current = turnParam;
    // Drop the parameter so that a reload reattaches instead of opening another terminal.
    router.replace("/terminals");
    openTurn(turnParam);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per ?turn= value
  }, [turnParam]);

  const closeTab = (sessionId: string) => {
    const rest = tabs.filter((t) => t.sessionId !== sessionId);
    setTabs(rest);
    if (active === sessionId) setActive(rest.at(-1)?.sessionId ?? null);
  };

  const labelOf = (sessionId: string) => {
    const info = list.data?.find((t) => t.id === sessionId);
    return info ? `${info.taskName} · turn ${info.turnIndex}` : "Terminal";
  };

  return (
    <main className="flex min-h-0 flex-1 flex-col" style={{ height: "calc(100vh - 2.75rem)" }}>
      <div className="flex items-center gap-1 border-b border-zinc-200 px-2 pt-1.5 dark:border-zinc-800" role="tablist">
        {tabs.map((t) => (
          <div
            key={t.sessionId}
            className={`flex items-center gap-1 rounded-t border border-b-0 px-2 py-1 text-xs ${
              t.sessionId === active ? "border-zinc-300 bg-white font-medium dark:border-zinc-700 dark:bg-zinc-900" : "border-transparent text-zinc-500"
            }`}
          >
            <button type="button" role="tab" aria-selected={t.sessionId === active} onClick={() => setActive(t.sessionId)} className="font-mono">
              {labelOf(t.sessionId)}
            </button>
            <button type="button" aria-label="Hide this tab" className="px-1 text-zinc-400 hover:text-zinc-900 dark:hover:text-zinc-100" onClick={() => closeTab(t.sessionId)}>
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
          <button type="submit" disabled={open.isPending} className="rounded border border-zinc-300 px-2 py-1 hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800">
            {open.isPending ? "Opening…" : "Open terminal"}
          </button>
        </form>
      </div>
      {error && (
        <div role="alert" className="border-b border-red-200 bg-red-50 px-3 py-2 text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100">
          {error}
        </div>
      )}
      {open.isPending && <p className="px-3 py-2 text-zinc-500">Restoring the checkpoint into a new sandbox…</p>}
      {tabs.length === 0 && !open.isPending && !error && (
        <p className="px-3 py-6 text-zinc-500">
          No terminal is open. In a task tree, select a turn and press <em>Open terminal here</em>, or paste a turn id above.
        </p>
      )}
      {tabs.map((t) => (
        <TerminalView key={t.sessionId} sessionId={t.sessionId} active={t.sessionId === active} onClose={() => closeTab(t.sessionId)} />
      ))}
    </main>
  );
}
