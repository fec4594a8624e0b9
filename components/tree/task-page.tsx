"use client";

import { useTask } from "@/components/queries/use-task";
import { useTaskTree } from "@/components/queries/use-task-tree";
import { SeedBadge } from "@/components/ui/status-badge";
import { TaskTreeView } from "./task-tree-view";

export function TaskPage({ taskId }: { taskId: string }) {
  const task = useTask(taskId);
  const tree = useTaskTree(taskId);
  return (
    <main className="flex min-h-0 flex-1 flex-col" style={{ height: "calc(100vh - 2.75rem)" }}>
      <div className="border-b border-zinc-200 px-4 py-2 dark:border-zinc-800">
        <div className="flex items-center gap-3">
          <h1 className="text-base font-semibold" data-testid="task-title">
            {task.data?.title ?? "…"}
          </h1>
          <span className="font-mono text-xs text-zinc-500">{task.data?.name}</span>
          {task.data?.source === "seed" && <SeedBadge />}
        </div>
        {task.data && (
          <details className="mt-1 text-zinc-600 dark:text-zinc-400">
            <summary className="cursor-pointer select-none text-xs">Instruction</summary>
            <p className="mt-1 max-w-4xl whitespace-pre-wrap">{task.data.instruction}</p>
          </details>
        )}
      </div>
      {tree.error && <p className="p-4 text-red-600">Could not load the tree: {tree.error.message}</p>}
      {tree.data && tree.data.turns.id.length === 0 && <p className="p-4 text-zinc-500">No rollouts of this task yet.</p>}
      {tree.data && tree.data.turns.id.length > 0 && <TaskTreeView tree={tree.data} />}
    </main>
  );
}
