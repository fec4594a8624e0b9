"use client";

import type { TurnDetail } from "@/server/inspect/get-turn-detail";
import { VirtualText } from "./virtual-text";

/** The verifier's verdict on the rollout, shown on its last turn (where the verifier ran). */
export function VerifierTab({ turn }: { turn: TurnDetail }) {
  const r = turn.rollout;
  return (
    <div className="flex flex-col gap-3" data-testid="verifier">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
        <dt className="text-zinc-500">reward</dt>
        <dd className="tabular-nums">{r.reward ?? "—"}</dd>
        <dt className="text-zinc-500">tests passed</dt>
        <dd className="tabular-nums">{r.partialScore === null ? "—" : `${Math.round(r.partialScore * 100)}%`}</dd>
        <dt className="text-zinc-500">stopped</dt>
        <dd>{r.stopReason ?? r.status}</dd>
      </dl>
      {r.error && <p className="rounded bg-red-50 px-2 py-1.5 text-red-800 dark:bg-red-950/40 dark:text-red-300">{r.error}</p>}
      {r.verifierFeedback ? <VirtualText text={r.verifierFeedback} /> : <p className="text-zinc-500">The verifier left no feedback.</p>}
    </div>
  );
}
