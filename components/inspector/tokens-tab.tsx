"use client";

import type { TurnDetail } from "@/server/inspect/get-turn-detail";

function Bar({ label, ms, total, tone }: { label: string; ms: number; total: number; tone: string }) {
  return (
    <div className="grid grid-cols-[7rem_1fr_5rem] items-center gap-2">
      <span className="text-zinc-500">{label}</span>
      <div className="h-2 rounded bg-zinc-100 dark:bg-zinc-800">
        <div className={`h-2 rounded ${tone}`} style={{ width: `${total > 0 ? (ms / total) * 100 : 0}%` }} />
      </div>
      <span className="text-right tabular-nums">{ms.toLocaleString("en")} ms</span>
    </div>
  );
}

/** What the turn cost: tokens in and out, and where its time went. */
export function TokensTab({ turn }: { turn: TurnDetail }) {
  const { modelMs, execMs, checkpointMs } = turn.timings;
  const total = modelMs + execMs + checkpointMs;
  return (
    <div className="flex flex-col gap-4" data-testid="tokens">
      <dl className="grid grid-cols-[7rem_1fr] gap-y-1">
        <dt className="text-zinc-500">prompt</dt>
        <dd className="tabular-nums">{turn.tokens.prompt.toLocaleString("en")} tokens</dd>
        <dt className="text-zinc-500">completion</dt>
        <dd className="tabular-nums">{turn.tokens.completion.toLocaleString("en")} tokens</dd>
        <dt className="text-zinc-500">checkpoint</dt>
        <dd className="font-mono text-xs">
          {turn.checkpoint
            ? `${turn.checkpoint.backend} ${turn.checkpoint.ref.slice(0, 16)} · +${(turn.checkpoint.bytesAdded / 1024).toFixed(1)} KiB · ${turn.checkpoint.state}`
            : "none"}
        </dd>
      </dl>
      <div className="flex flex-col gap-1.5">
        <Bar label="model" ms={modelMs} total={total} tone="bg-blue-500" />
        <Bar label="tool execution" ms={execMs} total={total} tone="bg-zinc-500" />
        <Bar label="checkpoint" ms={checkpointMs} total={total} tone="bg-amber-500" />
        <p className="text-right text-xs text-zinc-500 tabular-nums">total {total.toLocaleString("en")} ms</p>
      </div>
    </div>
  );
}
