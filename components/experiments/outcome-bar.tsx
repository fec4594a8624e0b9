import { rolloutOutcome } from "@/components/tree/build-tree";

const FILL: Record<string, string> = {
  resolved: "bg-[var(--color-resolved)]",
  failed: "bg-[var(--color-failed)]",
  running: "bg-[var(--color-running)] animate-pulse",
  interrupted: "bg-[var(--color-interrupted)]",
  pending: "bg-zinc-300 dark:bg-zinc-700",
};

/** One square per rollout: roots first, then each round's branches, coloured by outcome. */
export function OutcomeBar({ rollouts }: { rollouts: { id: string; kind: string; round: number; status: string; reward: number | null }[] }) {
  return (
    <span className="flex items-center gap-0.5" aria-label="rollouts by outcome">
      {rollouts.map((r, i) => (
        <span key={r.id} className="flex items-center">
          {i > 0 && rollouts[i - 1]!.round !== r.round && <span className="mx-1 h-3 w-px bg-zinc-300 dark:bg-zinc-700" />}
          <span title={`${r.kind}${r.round ? ` · round ${r.round}` : ""} · ${rolloutOutcome(r)}`} data-outcome={rolloutOutcome(r)} className={`inline-block h-3 ${r.kind === "root" ? "w-3 rounded-sm" : "w-2 rounded-full"} ${FILL[rolloutOutcome(r)]}`} />
        </span>
      ))}
    </span>
  );
}
