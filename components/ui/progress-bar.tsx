export function ProgressBar({ done, total, label }: { done: number; total: number; label?: string }) {
  const pct = total === 0 ? 0 : Math.round((done / total) * 100);
  return (
    <div className="flex items-center gap-2" aria-label={label ?? "progress"}>
      <div className="h-1.5 w-24 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800" role="progressbar" aria-valuenow={pct} aria-valuemin={0} aria-valuemax={100}>
        <div className="h-full rounded-full bg-[var(--color-running)]" style={{ width: `${pct}%` }} />
      </div>
      <span className="tabular-nums text-xs text-zinc-500">
        {done}/{total}
      </span>
    </div>
  );
}
