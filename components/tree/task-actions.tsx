"use client";

import { useBacktrack } from "@/components/queries/use-backtrack";

/** Task-level actions: a verifier-guided backtracking round, and the training groups as JSONL. */
export function TaskActions({ taskId, hasTurns }: { taskId: string; hasTurns: boolean }) {
  const backtrack = useBacktrack(taskId);
  return (
    <div className="ml-auto flex items-center gap-2 text-xs">
      {backtrack.data && (
        <span className="text-zinc-500" data-testid="backtrack-result">
          Review chose {backtrack.data.rollouts.length} branch{backtrack.data.rollouts.length === 1 ? "" : "es"}
          {backtrack.data.skipped.length > 0 ? `; skipped: ${backtrack.data.skipped.join("; ")}` : ""}
        </span>
      )}
      {backtrack.error && (
        <span className="text-red-600" data-testid="backtrack-error">
          {backtrack.error.message}
        </span>
      )}
      <button
        type="button"
        disabled={!hasTurns || backtrack.isPending}
        onClick={() => backtrack.mutate(3)}
        title="The actor, as reviewer, reads the failed rollouts with the verifier's feedback and starts branches from the turns it picks"
        className="rounded border border-zinc-300 px-2 py-1 hover:bg-zinc-100 disabled:cursor-not-allowed disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
      >
        {backtrack.isPending ? "Reviewing…" : "Backtrack from failures"}
      </button>
      <a
        href={`/api/tasks/${encodeURIComponent(taskId)}/export`}
        download
        className="rounded border border-zinc-300 px-2 py-1 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
      >
        Export training groups
      </a>
    </div>
  );
}
