"use client";

import Link from "next/link";

import { useEffect, useState } from "react";
import type { TreeRollout } from "@/server/tree/tree-types";
import { ApiError } from "@/components/queries/fetch-json";
import { rolloutLabel } from "@/components/tree/rollout-label";
import { StatusBadge } from "@/components/ui/status-badge";
import { AnnotationsTab } from "./annotations-tab";
import { BranchForm } from "./branch-form";
import { ComparePicker } from "./compare-picker";
import { FilesTab } from "./files-tab";
import { TokensTab } from "./tokens-tab";
import { TurnTab } from "./turn-tab";
import { useTurnDetail } from "./use-turn-detail";
import { VerifierTab } from "./verifier-tab";

type Tab = "turn" | "files" | "verifier" | "tokens" | "annotations";

const isTyping = (el: EventTarget | null) => el instanceof HTMLElement && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));

/** The side panel for one turn: what it did, the files it changed, its verifier result, its cost, its annotations. */
export function InspectorPanel({
  taskId,
  turnId,
  rollouts,
  onClose,
}: {
  taskId: string;
  turnId: string;
  rollouts: readonly TreeRollout[];
  onClose: () => void;
}) {
  const turn = useTurnDetail(taskId, turnId);
  const [tab, setTab] = useState<Tab>("turn");
  const [action, setAction] = useState<"branch" | "compare" | null>(null);
  const [annotateFocus, setAnnotateFocus] = useState(false);

  // A new turn keeps the tab (people step along a path on one tab) but closes half-done actions.
  const [shownTurn, setShownTurn] = useState(turnId);
  if (shownTurn !== turnId) {
    setShownTurn(turnId);
    setAction(null);
  }

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      if (isTyping(e.target)) {
        (e.target as HTMLElement).blur();
        return;
      }
      onClose();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [onClose]);

  const d = turn.data;
  const hasVerifier = !!d && d.rollout.isLastTurn && (d.rollout.verifierFeedback !== null || d.rollout.reward !== null || d.rollout.error !== null);
  const shown: Tab = tab === "verifier" && !hasVerifier ? "turn" : tab;
  const tabs: [Tab, string][] = [
    ["turn", "Turn"],
    ["files", "Files"],
    ...(hasVerifier ? [["verifier", "Verifier"] as [Tab, string]] : []),
    ["tokens", "Tokens & timings"],
    ["annotations", `Annotations${d && d.annotations.length > 0 ? ` (${d.annotations.length})` : ""}`],
  ];
  const rollout = d ? rollouts.find((r) => r.id === d.rollout.id) : undefined;
  const branchBlocked = d && (!d.checkpoint ? "This turn has no checkpoint to resume from." : d.checkpoint.state !== "live" ? "This turn's checkpoint was collected." : null);

  return (
    <aside
      className="flex w-full flex-col border-l border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-950"
      data-testid="inspector"
      aria-label="turn inspector"
    >
      <header className="flex items-center gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <div className="min-w-0 flex-1">
          <p className="flex items-center gap-2 font-semibold" data-testid="inspector-title">
            {d ? `Turn ${d.index}` : "Turn"}
            {d && <span className="font-normal text-zinc-500">{rollout ? rolloutLabel(rollout) : d.rollout.kind}</span>}
            {d && <StatusBadge status={d.rollout.status} />}
            {d && d.author !== "agent" && (
              <span className="rounded bg-violet-100 px-1.5 py-0.5 text-xs font-medium text-violet-800 dark:bg-violet-950 dark:text-violet-300">{d.author}</span>
            )}
          </p>
          {d && <p className="truncate font-mono text-xs text-zinc-500">{d.summary}</p>}
        </div>
        <button type="button" onClick={onClose} aria-label="close inspector" title="Close (Esc)" className="rounded px-2 py-1 text-zinc-500 hover:bg-zinc-100 dark:hover:bg-zinc-800">
          ✕
        </button>
      </header>

      {turn.error ? (
        <div className="p-4" role="alert" data-testid="inspector-error">
          {turn.error instanceof ApiError && turn.error.status === 404 ? (
            <>
              <p className="font-medium">This turn no longer exists.</p>
              <p className="mt-1 text-zinc-600 dark:text-zinc-400">
                It may have been removed with its rollout. Pick another node in the tree, or press Esc to close this panel.
              </p>
            </>
          ) : (
            <p className="text-red-600">Could not load the turn: {turn.error.message}</p>
          )}
        </div>
      ) : !d ? (
        <p className="p-4 text-zinc-500">Loading turn…</p>
      ) : (
        <>
          <div className="flex flex-wrap items-center gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
            <button
              type="button"
              onClick={() => setAction(action === "branch" ? null : "branch")}
              disabled={!!branchBlocked}
              title={branchBlocked ?? "Resume new branches from this turn's checkpoint"}
              aria-expanded={action === "branch"}
              className="rounded bg-blue-600 px-2.5 py-1 text-white hover:bg-blue-700 disabled:cursor-not-allowed disabled:bg-zinc-300 disabled:text-zinc-600 dark:disabled:bg-zinc-800 dark:disabled:text-zinc-500"
            >
              Branch from here
            </button>
            <button
              type="button"
              onClick={() => {
                setTab("annotations");
                setAnnotateFocus(true);
                setAction(null);
              }}
              className="rounded border border-zinc-300 px-2.5 py-1 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
            >
              Annotate
            </button>
            {branchBlocked ? (
              <span title={branchBlocked} className="cursor-not-allowed rounded border border-zinc-200 px-2.5 py-1 text-zinc-400 dark:border-zinc-800">
                Open terminal here
              </span>
            ) : (
              <Link
                href={`/terminals?turn=${encodeURIComponent(turnId)}`}
                title="Restore this turn's checkpoint into a live shell"
                className="rounded border border-zinc-300 px-2.5 py-1 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
              >
                Open terminal here
              </Link>
            )}
            <div className="relative">
              <button
                type="button"
                onClick={() => setAction(action === "compare" ? null : "compare")}
                aria-expanded={action === "compare"}
                className="rounded border border-zinc-300 px-2.5 py-1 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
              >
                Compare with…
              </button>
              {action === "compare" && (
                <div className="absolute left-0 top-full z-20 mt-1 w-64 rounded border border-zinc-200 bg-white shadow-lg dark:border-zinc-700 dark:bg-zinc-900">
                  <ComparePicker taskId={taskId} rolloutId={d.rollout.id} turnId={d.id} rollouts={rollouts} />
                </div>
              )}
            </div>
            {branchBlocked && <span className="text-xs text-zinc-500">{branchBlocked}</span>}
          </div>
          {action === "branch" && (
            <div className="border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
              <BranchForm taskId={taskId} turnId={d.id} onDone={() => setAction(null)} />
            </div>
          )}
          <nav className="flex gap-1 border-b border-zinc-200 px-2 dark:border-zinc-800" role="tablist">
            {tabs.map(([key, label]) => (
              <button
                key={key}
                type="button"
                role="tab"
                aria-selected={shown === key}
                onClick={() => setTab(key)}
                className={`-mb-px border-b-2 px-2 py-1.5 text-xs ${shown === key ? "border-zinc-900 font-medium dark:border-zinc-100" : "border-transparent text-zinc-500 hover:text-zinc-900 dark:hover:text-zinc-100"}`}
              >
                {label}
              </button>
            ))}
          </nav>
          <div className="min-h-0 flex-1 overflow-auto p-3" role="tabpanel">
            {shown === "turn" && <TurnTab turn={d} />}
            {shown === "files" && <FilesTab taskId={taskId} turnId={d.id} />}
            {shown === "verifier" && <VerifierTab turn={d} />}
            {shown === "tokens" && <TokensTab turn={d} />}
            {shown === "annotations" && <AnnotationsTab taskId={taskId} turn={d} autoFocus={annotateFocus} />}
          </div>
        </>
      )}
    </aside>
  );
}
