"use client";

import Link from "next/link";
import { useMutation } from "@tanstack/react-query";
import { useExperiment } from "@/components/queries/use-experiment";
import { useTasks } from "@/components/queries/use-tasks";
import { fetchJson } from "@/components/queries/fetch-json";
import { ProgressBar } from "@/components/ui/progress-bar";
import { SeedBadge, StatusBadge } from "@/components/ui/status-badge";
import { formatCount, formatPercent } from "@/components/ui/format";
import { OutcomeBar } from "./outcome-bar";

const METHOD: Record<string, string> = { pass1: "pass@1", passk: "pass@k", sprout: "SPROUT", manual: "manual" };

export function ExperimentPage({ experimentId }: { experimentId: string }) {
  const { data: e, error } = useExperiment(experimentId);
  const tasks = useTasks();
  const cancel = useMutation({ mutationFn: () => fetchJson(`/api/experiments/${experimentId}/cancel`, { method: "POST" }) });
  if (error) return <p className="p-6 text-red-600">Could not load the experiment: {error.message}</p>;
  if (!e) return <p className="p-6 text-zinc-500">Loading…</p>;
  const m = e.metrics;
  const names = new Map<string, { name: string }>((tasks.data ?? []).map((t) => [t.id, t]));
  const demo = e.policy.kind === "demo";
  return (
    <main className="mx-auto w-full max-w-6xl space-y-6 px-6 py-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-base font-semibold" data-testid="experiment-name">
          {e.name}
        </h1>
        <StatusBadge status={e.status} />
        {e.seed && <SeedBadge />}
        <span className="text-zinc-500">
          {METHOD[e.method] ?? e.method} · k = {e.config.k}
          {e.method === "sprout" && ` · ${e.config.rounds} rounds × ${e.config.branches} branches · ${e.config.strategy} · guidance ${e.config.guidance} · reviewer reads ${e.config.reviewInput}`}
        </span>
        {e.status === "running" && (
          <>
            <ProgressBar done={e.rollouts.finished} total={e.rollouts.total} label="rollouts finished" />
            <button type="button" onClick={() => cancel.mutate()} disabled={cancel.isPending} className="rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800">
              Cancel
            </button>
          </>
        )}
      </div>
      {demo && (
        <p className="text-xs text-zinc-500">
          Demo policy: a scripted stand-in that follows each task&apos;s reference steps and sometimes takes a listed mistake. These numbers show the machinery on synthetic tasks, not a model&apos;s ability.
        </p>
      )}
      {e.error && <p className="text-red-600">Stopped with an error: {e.error}</p>}

      <table className="w-full max-w-4xl border-collapse" data-testid="metrics-table">
        <thead>
          <tr className="border-b border-zinc-200 text-left text-xs uppercase tracking-wide text-zinc-500 dark:border-zinc-800">
            <th className="py-2 pr-4 font-medium">Resolve rate</th>
            <th className="py-2 pr-4 font-medium">Recovery</th>
            <th className="py-2 pr-4 text-right font-medium">Steps</th>
            <th className="py-2 pr-4 text-right font-medium">Tokens</th>
            <th className="py-2 pr-4 text-right font-medium">Roots</th>
            <th className="py-2 pr-4 text-right font-medium">Branches</th>
            <th className="py-2 text-right font-medium">Saved by resuming</th>
          </tr>
        </thead>
        <tbody>
          <tr className="text-base tabular-nums">
            <td className="py-2 pr-4">
              {formatPercent(m.resolvedTasks, m.tasks)} <span className="text-xs text-zinc-500">({m.resolvedTasks}/{m.tasks})</span>
            </td>
            <td className="py-2 pr-4">{(m.recoveryRate * 100).toFixed(1)}%</td>
            <td className="py-2 pr-4 text-right">{formatCount(m.steps)}</td>
            <td className="py-2 pr-4 text-right">{formatCount(m.tokens)}</td>
            <td className="py-2 pr-4 text-right">{m.roots}</td>
            <td className="py-2 pr-4 text-right">{m.branches}</td>
            <td className="py-2 text-right text-sm">
              {formatCount(m.savedSteps)} steps · {formatCount(m.savedTokens)} tokens
            </td>
          </tr>
        </tbody>
      </table>

      <section>
        <h2 className="mb-2 text-sm font-semibold">Tasks</h2>
        <ul className="divide-y divide-zinc-100 dark:divide-zinc-900" data-testid="experiment-tasks">
          {e.outcomes.map((o) => {
            const t = names.get(o.taskId);
            const pm = m.perTask.find((p) => p.taskId === o.taskId);
            return (
              <li key={o.taskId}>
                <Link href={`/tasks/${o.taskId}?experiment=${e.id}`} className="flex items-center gap-4 py-2 hover:bg-zinc-50 dark:hover:bg-zinc-900">
                  <span className="w-64 truncate font-mono text-xs">{t?.name ?? o.taskId}</span>
                  <OutcomeBar rollouts={o.rollouts} />
                  <span className="ml-auto w-24 text-right text-xs tabular-nums text-zinc-500">{pm ? `${pm.steps} steps` : ""}</span>
                  <span className="w-20 text-right text-xs">{pm && pm.resolvedTasks > 0 ? <span className="text-[var(--color-resolved)]">resolved</span> : <span className="text-zinc-500">not yet</span>}</span>
                </Link>
              </li>
            );
          })}
        </ul>
      </section>
    </main>
  );
}
