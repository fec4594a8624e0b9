"use client";

import Link from "next/link";
import type { ExperimentSummary } from "@/server/experiments/experiment-store";
import { useExperiments } from "@/components/queries/use-experiments";
import { formatCount } from "@/components/ui/format";

const METHOD: Record<string, string> = { pass1: "pass@1", passk: "pass@k", sprout: "SPROUT", manual: "manual" };
const ORDER: Record<string, number> = { pass1: 0, passk: 1, sprout: 2, manual: 3 };

function Bar({ value, max, label, tone }: { value: number; max: number; label: string; tone: string }) {
  const pct = max > 0 && value > 0 ? Math.max(1, (value / max) * 100) : 0;
  return (
    <td className="py-1.5 pr-4 align-middle">
      <div className="flex items-center gap-2">
        <div className="h-2.5 w-40 shrink-0 rounded-sm bg-zinc-100 dark:bg-zinc-900" aria-hidden>
          <div className={`h-full rounded-sm ${tone}`} style={{ width: `${pct}%` }} />
        </div>
        <span className="tabular-nums text-zinc-700 dark:text-zinc-300">{label}</span>
      </div>
    </td>
  );
}

/**
 * Finished experiments over the same tasks side by side: resolve rate, executed steps and
 * tokens per method and setting (a rounds × branches sweep shows up as one row per setting).
 * Seed data and runs that did not finish are left out: they are not results.
 */
export function MethodChart() {
  const { data } = useExperiments();
  const rows = (data ?? []).filter((e) => !e.seed && e.status === "completed" && e.tasks > 0);
  // Compare like with like: the task count most finished experiments share.
  const counts = new Map<number, number>();
  for (const e of rows) counts.set(e.tasks, (counts.get(e.tasks) ?? 0) + 1);
  const tasks = [...counts].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0];
  const shown = rows
    .filter((e) => e.tasks === tasks)
    .sort((a, b) => (ORDER[a.method] ?? 9) - (ORDER[b.method] ?? 9) || a.setting.localeCompare(b.setting) || a.createdAt.localeCompare(b.createdAt))
    .slice(0, 24);
  if (shown.length < 2) return null;
  const maxSteps = Math.max(...shown.map((e) => e.steps));
  const maxTokens = Math.max(...shown.map((e) => e.tokens));
  const rate = (e: ExperimentSummary) => e.resolvedTasks / e.tasks;
  return (
    <section data-testid="method-chart">
      <h2 className="mb-1 text-base font-semibold">Methods compared</h2>
      <p className="mb-2 text-xs text-zinc-500">
        Finished experiments over {tasks} task{tasks === 1 ? "" : "s"}: the share of tasks resolved, and what it cost in executed steps (a restored prefix
        counts once) and tokens.
      </p>
      <table className="border-collapse text-sm">
        <thead>
          <tr className="border-b border-zinc-200 text-left text-xs uppercase tracking-wide text-zinc-500 dark:border-zinc-800">
            <th className="py-2 pr-4 font-medium">Method</th>
            <th className="py-2 pr-4 font-medium">Resolve rate</th>
            <th className="py-2 pr-4 font-medium">Steps</th>
            <th className="py-2 pr-4 font-medium">Tokens</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((e) => (
            <tr key={e.id} className="border-b border-zinc-100 dark:border-zinc-900">
              <td className="py-1.5 pr-4">
                <Link href={`/experiments/${e.id}`} className="font-medium hover:underline" title={e.name}>
                  {METHOD[e.method] ?? e.method}
                </Link>
                {e.setting && <span className="ml-2 text-xs text-zinc-500">{e.setting}</span>}
              </td>
              <Bar value={rate(e)} max={1} label={`${Math.round(rate(e) * 1000) / 10}%`} tone="bg-[var(--color-resolved)]" />
              <Bar value={e.steps} max={maxSteps} label={formatCount(e.steps)} tone="bg-zinc-500" />
              <Bar value={e.tokens} max={maxTokens} label={formatCount(e.tokens)} tone="bg-zinc-400" />
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
