"use client";

import { useRouter } from "next/navigation";
import { useStartDemo } from "@/components/queries/use-start-demo";

/** The newcomer's one click: run SPROUT with the demo policy on the built-in tasks and watch a tree grow. */
export function RunDemoButton() {
  const router = useRouter();
  const start = useStartDemo();
  return (
    <div className="flex items-center gap-3">
      <button
        type="button"
        data-testid="run-demo"
        disabled={start.isPending}
        onClick={() =>
          start.mutate(undefined, {
            onSuccess: ({ id, firstTaskId }) => router.push(firstTaskId ? `/tasks/${firstTaskId}?experiment=${id}` : `/experiments/${id}`),
          })
        }
        className="rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 disabled:cursor-wait disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300"
      >
        {start.isPending ? "Starting…" : "▶ Run the demo"}
      </button>
      <span className="text-xs text-zinc-500">
        SPROUT on the 8 built-in tasks with the offline <strong>demo policy</strong> (a scripted stand-in for a model): real sandboxes, real checkpoints, real branches.
      </span>
      {start.error && <span className="text-xs text-red-600">Could not start the demo: {start.error.message}</span>}
    </div>
  );
}
