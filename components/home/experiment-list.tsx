"use client";

import Link from "next/link";
import { useExperiments } from "@/components/queries/use-experiments";
import { ProgressBar } from "@/components/ui/progress-bar";
import { SeedBadge, StatusBadge } from "@/components/ui/status-badge";
import { formatCount, formatDate, formatPercent } from "@/components/ui/format";

const METHOD: Record<string, string> = { pass1: "pass@1", passk: "pass@k", sprout: "SPROUT", manual: "manual" };

export function ExperimentList() {
  const { data, error, isPending } = useExperiments();
  if (isPending) return <p className="py-6 text-zinc-500">Loading experiments…</p>;
  if (error) return <p className="py-6 text-red-600">Could not load experiments: {error.message}</p>;
  if (data.length === 0) {
    return <p className="py-6 text-zinc-500">No experiments yet.</p>;
  }
  return (
    <table className="w-full border-collapse" data-testid="experiment-list">
      <thead>
        <tr className="border-b border-zinc-200 text-left text-xs uppercase tracking-wide text-zinc-500 dark:border-zinc-800">
          <th className="py-2 pr-4 font-medium">Experiment</th>
          <th className="py-2 pr-4 font-medium">Method</th>
          <th className="py-2 pr-4 font-medium">Status</th>
          <th className="py-2 pr-4 font-medium">Rollouts</th>
          <th className="py-2 pr-4 text-right font-medium">Resolved tasks</th>
          <th className="py-2 pr-4 text-right font-medium">Steps</th>
          <th className="py-2 pr-4 text-right font-medium">Tokens</th>
          <th className="py-2 text-right font-medium">Started</th>
        </tr>
      </thead>
      <tbody>
        {data.map((e) => (
          <tr key={e.id} className="border-b border-zinc-100 dark:border-zinc-900">
            <td className="py-2 pr-4">
              <Link href={`/experiments/${e.id}`} className="mr-2 font-medium hover:underline">
                {e.name}
              </Link>
              {e.seed && <SeedBadge />}
            </td>
            <td className="py-2 pr-4">
              {METHOD[e.method] ?? e.method}
              {e.setting && <span className="ml-2 text-xs text-zinc-500">{e.setting}</span>}
            </td>
            <td className="py-2 pr-4">
              <StatusBadge status={e.status} />
            </td>
            <td className="py-2 pr-4">
              <ProgressBar done={e.finishedRollouts} total={e.rollouts} label={`${e.name} rollouts finished`} />
            </td>
            <td className="py-2 pr-4 text-right tabular-nums">
              {e.resolvedTasks}/{e.tasks} <span className="text-zinc-500">({formatPercent(e.resolvedTasks, e.tasks)})</span>
            </td>
            <td className="py-2 pr-4 text-right tabular-nums">{formatCount(e.steps)}</td>
            <td className="py-2 pr-4 text-right tabular-nums">{formatCount(e.tokens)}</td>
            <td className="py-2 text-right text-zinc-500">{formatDate(e.createdAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
