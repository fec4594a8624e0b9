const TONE: Record<string, string> = {
  running: "bg-blue-50 text-blue-700 ring-blue-200 dark:bg-blue-950 dark:text-blue-300 dark:ring-blue-900",
  completed: "bg-zinc-100 text-zinc-700 ring-zinc-200 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-700",
  failed: "bg-red-50 text-red-700 ring-red-200 dark:bg-red-950 dark:text-red-300 dark:ring-red-900",
  interrupted: "bg-amber-50 text-amber-800 ring-amber-200 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-900",
  cancelled: "bg-amber-50 text-amber-800 ring-amber-200 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-900",
  pending: "bg-zinc-50 text-zinc-500 ring-zinc-200 dark:bg-zinc-900 dark:text-zinc-400 dark:ring-zinc-800",
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${TONE[status] ?? TONE.pending}`}>
      {status}
    </span>
  );
}

/** Rows made by the development seed script say so wherever they appear. */
export function SeedBadge() {
  return (
    <span
      title="Made by `npm run seed` for development: not a real result"
      className="inline-flex items-center rounded border border-dashed border-zinc-400 px-1.5 py-0.5 text-[11px] uppercase tracking-wide text-zinc-500"
    >
      seed data
    </span>
  );
}
