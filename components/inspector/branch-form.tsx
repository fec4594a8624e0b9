"use client";

import { useState } from "react";
import { ApiError } from "@/components/queries/fetch-json";
import { useBranchFromTurn } from "./use-branch-from-turn";

function advice(error: Error): string {
  if (!(error instanceof ApiError)) return "Check that the server is running, then try again.";
  if (error.status === 409) return "Pick a turn whose checkpoint is still live.";
  if (error.status === 404) return "The turn is gone, or this server has no branch endpoint yet.";
  if (error.status === 400) return "Fix the hint or the count and try again.";
  return "Try again; if it keeps failing, the server log says why.";
}

/** Resume new branches from this turn's checkpoint, with an optional text hint. */
export function BranchForm({ taskId, turnId, onDone }: { taskId: string; turnId: string; onDone: () => void }) {
  const branch = useBranchFromTurn(taskId, turnId);
  const [hint, setHint] = useState("");
  const [count, setCount] = useState(1);
  return (
    <form
      className="flex flex-col gap-2 rounded border border-zinc-200 bg-zinc-50 p-2 dark:border-zinc-800 dark:bg-zinc-900"
      data-testid="branch-form"
      onSubmit={(e) => {
        e.preventDefault();
        // The button is disabled while pending; this guard also stops a second submit by Enter.
        if (branch.isPending) return;
        branch.mutate({ hint: hint.trim() || undefined, count });
      }}
    >
      <textarea
        value={hint}
        onChange={(e) => setHint(e.target.value)}
        rows={3}
        autoFocus
        aria-label="hint"
        placeholder="Hint for the resumed agent (optional), e.g. “the bug is in tokenize(), not in the parser”"
        className="rounded border border-zinc-300 bg-white px-2 py-1 dark:border-zinc-700 dark:bg-zinc-950"
      />
      <div className="flex items-center gap-2">
        <label className="flex items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400">
          branches
          <select
            value={count}
            onChange={(e) => setCount(Number(e.target.value))}
            className="rounded border border-zinc-300 bg-white px-1 py-0.5 dark:border-zinc-700 dark:bg-zinc-950"
          >
            {[1, 2, 3, 4, 5, 6, 7, 8].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <button
          type="submit"
          disabled={branch.isPending}
          className="rounded bg-blue-600 px-3 py-1 text-white hover:bg-blue-700 disabled:cursor-wait disabled:opacity-60"
        >
          {branch.isPending ? "Starting…" : count === 1 ? "Start branch" : `Start ${count} branches`}
        </button>
        <button type="button" onClick={onDone} className="text-xs text-zinc-500 hover:underline">
          cancel
        </button>
      </div>
      {branch.isSuccess && (
        <p className="text-green-700 dark:text-green-400" role="status">
          Started {branch.data.rollouts.length} branch{branch.data.rollouts.length === 1 ? "" : "es"}: they grow in the tree as they run.
        </p>
      )}
      {branch.error && (
        <p className="text-red-700 dark:text-red-400" role="alert">
          Could not start the branch: {branch.error.message}. {advice(branch.error)}
        </p>
      )}
    </form>
  );
}
