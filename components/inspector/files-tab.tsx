"use client";

import { useState } from "react";
import type { DiffAgainst } from "@/server/inspect/turn-diff";
import { FilesDiffList } from "./file-diff-view";
import { useTurnDiff } from "./use-turn-diff";

/** The files this turn changed, against the previous turn or against the task's start. */
export function FilesTab({ taskId, turnId }: { taskId: string; turnId: string }) {
  const [against, setAgainst] = useState<DiffAgainst>("parent");
  const diff = useTurnDiff(taskId, turnId, against);
  return (
    <div className="flex flex-col gap-3">
      <div className="flex items-center gap-2 text-xs">
        <span className="text-zinc-500">Compare with</span>
        <div className="inline-flex rounded border border-zinc-300 dark:border-zinc-700" role="group">
          {(["parent", "start"] as const).map((a) => (
            <button
              key={a}
              type="button"
              aria-pressed={against === a}
              onClick={() => setAgainst(a)}
              className={`px-2 py-0.5 ${against === a ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900" : "hover:bg-zinc-100 dark:hover:bg-zinc-800"}`}
            >
              {a === "parent" ? "previous turn" : "task start"}
            </button>
          ))}
        </div>
        {diff.data?.status === "ok" && <span className="text-zinc-500">base: {diff.data.baseLabel}</span>}
      </div>
      {diff.isPending && <p className="text-zinc-500">Reading the checkpoints…</p>}
      {diff.error && <p className="text-red-600">Could not compute the diff: {diff.error.message}</p>}
      {diff.data && <FilesDiffList diff={diff.data} emptyText="This turn changed no files." />}
    </div>
  );
}
