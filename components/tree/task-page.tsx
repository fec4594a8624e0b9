"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { useSearchParams } from "next/navigation";
import { useTask } from "@/components/queries/use-task";
import { useTaskTree } from "@/components/queries/use-task-tree";
import { InspectorPanel } from "@/components/inspector/inspector-panel";
import { SeedBadge } from "@/components/ui/status-badge";
import { TaskActions } from "./task-actions";
import { TaskTreeView } from "./task-tree-view";

/** The task's tree with the inspector beside it; the inspected turn lives in the address (?turn=) so it can be shared. */
export function TaskPage({ taskId }: { taskId: string }) {
  const task = useTask(taskId);
  const tree = useTaskTree(taskId);
  const search = useSearchParams();
  const [inspected, setInspected] = useState<string | null>(() => search.get("turn"));
  const area = useRef<HTMLDivElement>(null);
  const [areaWidth, setAreaWidth] = useState(1280);
  useEffect(() => {
    const el = area.current;
    if (!el) return;
    const ro = new ResizeObserver(([entry]) => entry && setAreaWidth(entry.contentRect.width));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const panelWidth = Math.round(Math.max(380, Math.min(560, areaWidth * 0.45)));

  const inspect = useCallback((turnId: string | null) => {
    setInspected(turnId);
    const url = new URL(window.location.href);
    if (turnId) url.searchParams.set("turn", turnId);
    else url.searchParams.delete("turn");
    window.history.replaceState(window.history.state, "", url);
  }, []);
  const close = useCallback(() => {
    inspect(null);
    // Give the keyboard back to the tree, so arrows work right after Esc.
    document.querySelector<HTMLElement>('[data-testid="tree-box"]')?.focus();
  }, [inspect]);

  return (
    <main className="flex min-h-0 flex-1 flex-col" style={{ height: "calc(100vh - 2.75rem)" }}>
      <div className="border-b border-zinc-200 px-4 py-2 dark:border-zinc-800">
        <div className="flex items-center gap-3">
          <h1 className="text-base font-semibold" data-testid="task-title">
            {task.data?.title ?? "…"}
          </h1>
          <span className="font-mono text-xs text-zinc-500">{task.data?.name}</span>
          {task.data?.source === "seed" && <SeedBadge />}
          <TaskActions taskId={taskId} hasTurns={(tree.data?.turns.id.length ?? 0) > 0} />
        </div>
        {task.data && (
          <details className="mt-1 text-zinc-600 dark:text-zinc-400">
            <summary className="cursor-pointer select-none text-xs">Instruction</summary>
            <p className="mt-1 max-w-4xl whitespace-pre-wrap">{task.data.instruction}</p>
          </details>
        )}
      </div>
      {tree.error && <p className="p-4 text-red-600">Could not load the tree: {tree.error.message}</p>}
      {/* The inspector lies over the tree's right side instead of narrowing it: resizing a 10,000-node
          drawing costs a full re-layout and repaint, moving it does not. The tree keeps its node clear of the panel. */}
      <div className="relative flex min-h-0 flex-1" ref={area}>
        {tree.isPending && <p className="flex-1 p-4 text-sm text-zinc-500" data-testid="tree-loading">Loading the tree…</p>}
        {tree.data && tree.data.turns.id.length === 0 && <p className="flex-1 p-4 text-zinc-500">No rollouts of this task yet.</p>}
        {tree.data && tree.data.turns.id.length > 0 && (
          <TaskTreeView tree={tree.data} inspectedTurnId={inspected} onInspect={inspect} occludedRightPx={inspected ? panelWidth : 0} />
        )}
        {inspected && (
          <div className="absolute inset-y-0 right-0 z-20 flex shadow-xl" style={{ width: panelWidth }}>
            <InspectorPanel taskId={taskId} turnId={inspected} rollouts={tree.data?.rollouts ?? []} onClose={close} />
          </div>
        )}
      </div>
    </main>
  );
}
