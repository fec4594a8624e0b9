"use client";

import Link from "next/link";
import type { TreeRollout } from "@/server/tree/tree-types";
import { rolloutOutcome } from "@/components/tree/build-tree";
import { rolloutLabel } from "@/components/tree/rollout-label";

const DOT: Record<string, string> = {
  resolved: "var(--color-resolved)",
  failed: "var(--color-failed)",
  running: "var(--color-running)",
  interrupted: "var(--color-interrupted)",
  pending: "var(--color-pending)",
};

/**
 * Other rollouts of the task to compare with, siblings first: branches from the same
 * fork (or the other roots, for a root), then branches that grew from this turn, then the rest.
 */
export function ComparePicker({
  taskId,
  rolloutId,
  turnId,
  rollouts,
}: {
  taskId: string;
  rolloutId: string;
  turnId: string;
  rollouts: readonly TreeRollout[];
}) {
  const me = rollouts.find((r) => r.id === rolloutId);
  const rank = (r: TreeRollout) => {
    if (me && r.kind === me.kind && r.branchedFromTurnId === me.branchedFromTurnId) return 0;
    if (r.branchedFromTurnId === turnId) return 1;
    return 2;
  };
  const others = rollouts
    .filter((r) => r.id !== rolloutId)
    .map((r) => ({ r, rank: rank(r) }))
    .sort((a, b) => a.rank - b.rank);
  if (others.length === 0) return <p className="p-2 text-zinc-500">This task has no other rollout to compare with.</p>;
  return (
    <ul className="max-h-64 overflow-auto py-1" data-testid="compare-picker">
      {others.map(({ r, rank }, i) => (
        <li key={r.id}>
          {(i === 0 || others[i - 1]!.rank !== rank) && (
            <p className="px-2 pt-1 text-[11px] uppercase tracking-wide text-zinc-500">
              {rank === 0 ? "siblings" : rank === 1 ? "branched from this turn" : "other rollouts"}
            </p>
          )}
          <Link
            href={`/tasks/${encodeURIComponent(taskId)}/compare?a=${encodeURIComponent(rolloutId)}&b=${encodeURIComponent(r.id)}`}
            className="flex items-center gap-2 px-2 py-1 hover:bg-zinc-100 dark:hover:bg-zinc-800"
          >
            <span className="h-2 w-2 rounded-full" style={{ background: DOT[rolloutOutcome(r)] }} />
            {rolloutLabel(r)}
            <span className="ml-auto text-xs text-zinc-500">{rolloutOutcome(r)}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
