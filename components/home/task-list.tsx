"use client";

import Link from "next/link";
import { useTasks } from "@/components/queries/use-tasks";
import { SeedBadge } from "@/components/ui/status-badge";
import { formatCount } from "@/components/ui/format";

export function TaskList() {
  const { data, error, isPending } = useTasks();
  if (isPending) return <p className="py-6 text-zinc-500">Loading tasks…</p>;
  if (error) return <p className="py-6 text-red-600">Could not load tasks: {error.message}</p>;
  if (data.length === 0) return <p className="py-6 text-zinc-500">No tasks yet.</p>;
  return (
    <ul className="divide-y divide-zinc-100 dark:divide-zinc-900" data-testid="task-list">
      {data.map((t) => (
        <li key={t.id}>
          <Link href={`/tasks/${t.id}`} className="flex items-center gap-4 py-2 hover:bg-zinc-50 dark:hover:bg-zinc-900">
            <span className="min-w-0 flex-1 truncate">
              <span className="font-medium">{t.title}</span> <span className="font-mono text-xs text-zinc-500">{t.name}</span>
            </span>
            {t.source === "seed" ? <SeedBadge /> : <span className="text-xs text-zinc-500">{t.source}</span>}
            <span className="w-28 text-right tabular-nums text-zinc-600 dark:text-zinc-400">
              {t.resolved}/{t.rollouts} resolved
            </span>
            <span className="w-20 text-right tabular-nums text-zinc-500">{formatCount(t.turns)} turns</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
