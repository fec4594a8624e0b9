"use client";

import Link from "next/link";
import type { ComparedRollout, CompareStep, RolloutComparison } from "@/server/inspect/compare-rollouts";
import { ApiError } from "@/components/queries/fetch-json";
import { FilesDiffList } from "@/components/inspector/file-diff-view";
import { showToolCall } from "@/components/inspector/tool-call";
import { rolloutOutcome } from "@/components/tree/build-tree";
import { rolloutLabel } from "@/components/tree/rollout-label";
import { TONE_FILL } from "@/components/tree/tones";
import { useCompare } from "./use-compare";

const turnHref = (taskId: string, turnId: string) => `/tasks/${encodeURIComponent(taskId)}?turn=${encodeURIComponent(turnId)}`;

function RolloutHead({ side, r }: { side: "A" | "B"; r: ComparedRollout }) {
  const outcome = rolloutOutcome(r);
  return (
    <div className="flex flex-col gap-0.5" data-testid={`compare-head-${side}`}>
      <p className="flex items-center gap-2 font-semibold">
        <span className="rounded bg-zinc-200 px-1.5 text-xs dark:bg-zinc-800">{side}</span>
        {rolloutLabel(r)}
        <span className="flex items-center gap-1 text-xs font-normal">
          <span className="h-2 w-2 rounded-full" style={{ background: TONE_FILL[outcome] }} />
          {outcome}
        </span>
      </p>
      <p className="text-xs text-zinc-500">
        reward {r.reward ?? "—"} · tests {r.partialScore === null ? "—" : `${Math.round(r.partialScore * 100)}%`} · {r.steps.length} steps after the fork ·{" "}
        {(r.promptTokens + r.completionTokens).toLocaleString("en")} tokens
      </p>
      {r.startingHint && <p className="truncate text-xs text-amber-700 dark:text-amber-400">hint: {r.startingHint}</p>}
    </div>
  );
}

function StepCell({ taskId, step, tone }: { taskId: string; step: CompareStep | undefined; tone: "same" | "first" | "after" }) {
  if (!step) return <div className="px-2 py-1 text-xs italic text-zinc-400">(no step: this rollout ended)</div>;
  return (
    <Link
      href={turnHref(taskId, step.id)}
      className={`flex min-w-0 items-baseline gap-2 px-2 py-1 font-mono text-xs hover:bg-zinc-100 dark:hover:bg-zinc-800 ${tone === "same" ? "text-zinc-500" : ""}`}
      title="open this turn in the tree"
    >
      <span className="w-8 shrink-0 text-right tabular-nums text-zinc-400">{step.index}</span>
      {step.author !== "agent" && <span className="shrink-0 rounded bg-violet-100 px-1 text-violet-800 dark:bg-violet-950 dark:text-violet-300">{step.author}</span>}
      <span className={`min-w-0 flex-1 truncate ${step.isError ? "text-red-700 dark:text-red-400" : ""}`}>{step.summary || step.tool || "(no tool call)"}</span>
    </Link>
  );
}

function Steps({ taskId, data }: { taskId: string; data: RolloutComparison }) {
  const rows = Math.max(data.a.steps.length, data.b.steps.length);
  const first = data.firstDifference;
  return (
    <div className="rounded border border-zinc-200 dark:border-zinc-800" data-testid="compare-steps">
      <div className="grid grid-cols-2 divide-x divide-zinc-200 border-b border-zinc-200 bg-zinc-50 text-[11px] font-semibold uppercase tracking-wide text-zinc-500 dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900">
        <div className="px-2 py-1" data-testid="compare-column-a">
          A · after the fork
        </div>
        <div className="px-2 py-1" data-testid="compare-column-b">
          B · after the fork
        </div>
      </div>
      {rows === 0 && <p className="px-2 py-2 text-zinc-500">Neither rollout has turns after the fork.</p>}
      {Array.from({ length: rows }, (_, i) => {
        const tone = first === null || i < first ? "same" : i === first ? "first" : "after";
        return (
          <div key={i}>
            {tone === "first" && (
              <p className="border-t border-amber-300 bg-amber-50 px-2 py-0.5 text-[11px] font-semibold uppercase tracking-wide text-amber-800 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-300">
                first different step
              </p>
            )}
            <div
              className={`grid grid-cols-2 divide-x divide-zinc-200 dark:divide-zinc-800 ${tone === "first" ? "bg-amber-50 ring-1 ring-inset ring-amber-400 dark:bg-amber-950/40 dark:ring-amber-700" : ""}`}
              data-testid={tone === "first" ? "first-difference" : undefined}
            >
              <StepCell taskId={taskId} step={data.a.steps[i]} tone={tone} />
              <StepCell taskId={taskId} step={data.b.steps[i]} tone={tone} />
            </div>
          </div>
        );
      })}
    </div>
  );
}

function Call({ call }: { call: unknown }) {
  const c = showToolCall(call);
  return (
    <pre className="max-h-64 overflow-auto rounded border border-zinc-200 bg-zinc-50 px-2 py-1.5 font-mono text-xs dark:border-zinc-800 dark:bg-zinc-900">
      {c ? (
        <>
          <span className="font-semibold text-blue-700 dark:text-blue-400">{c.name}</span>
          {"\n"}
          {c.args}
        </>
      ) : (
        "(no tool call)"
      )}
    </pre>
  );
}

/** Two rollouts side by side, aligned at their fork, the first differing step marked, and the diff of their final files. */
export function ComparePage({ taskId, a, b }: { taskId: string; a: string | null; b: string | null }) {
  const compare = useCompare(taskId, a, b);
  const data = compare.data;
  const fork = data?.shared[data.shared.length - 1];
  return (
    <main className="mx-auto flex w-full max-w-6xl flex-col gap-4 px-4 py-4" data-testid="compare-page">
      <div className="flex items-center gap-3">
        <Link href={`/tasks/${encodeURIComponent(taskId)}`} className="text-zinc-500 hover:text-zinc-900 dark:hover:text-zinc-100">
          ← tree
        </Link>
        <h1 className="text-base font-semibold">Compare rollouts</h1>
      </div>
      {(!a || !b) && <p className="text-zinc-600">Pick two rollouts: open a turn in the tree and use “Compare with…”.</p>}
      {compare.isPending && a && b && <p className="text-zinc-500">Aligning the two rollouts…</p>}
      {compare.error && (
        <p className="text-red-600" role="alert">
          {compare.error instanceof ApiError && compare.error.status === 404
            ? "One of these rollouts no longer exists. Go back to the tree and pick two again."
            : `Could not compare: ${compare.error.message}`}
        </p>
      )}
      {data && (
        <>
          <div className="grid grid-cols-2 gap-4">
            <RolloutHead side="A" r={data.a} />
            <RolloutHead side="B" r={data.b} />
          </div>
          <p className="text-zinc-600 dark:text-zinc-400" data-testid="compare-fork">
            {fork ? (
              <>
                They share {data.shared.length} turn{data.shared.length === 1 ? "" : "s"} and fork after{" "}
                <Link href={turnHref(taskId, fork.id)} className="font-mono text-xs underline">
                  turn {fork.index}: {fork.summary}
                </Link>
                .
              </>
            ) : (
              "They share no turns: both start from the task's start."
            )}{" "}
            {data.firstDifference === null
              ? "Their actions never differ."
              : data.firstDifference === 0
                ? "They differ from the first step after the fork."
                : `The first ${data.firstDifference} step${data.firstDifference === 1 ? " is" : "s are"} the same; then they differ.`}
          </p>
          {data.shared.length > 0 && (
            <details className="rounded border border-zinc-200 dark:border-zinc-800">
              <summary className="cursor-pointer select-none px-2 py-1 text-xs text-zinc-600 dark:text-zinc-400">shared turns ({data.shared.length})</summary>
              <div className="max-h-64 overflow-auto">
                {data.shared.map((s) => (
                  <StepCell key={s.id} taskId={taskId} step={s} tone="same" />
                ))}
              </div>
            </details>
          )}
          <Steps taskId={taskId} data={data} />
          {data.firstDifferentCalls && (
            <section className="flex flex-col gap-1">
              <h2 className="text-[11px] font-semibold uppercase tracking-wide text-zinc-500">The first different actions in full</h2>
              <div className="grid grid-cols-2 gap-4">
                <Call call={data.firstDifferentCalls.a} />
                <Call call={data.firstDifferentCalls.b} />
              </div>
            </section>
          )}
          <section className="flex flex-col gap-2" data-testid="compare-files">
            <h2 className="text-[11px] font-semibold uppercase tracking-wide text-zinc-500">Final files: from A to B</h2>
            <FilesDiffList diff={data.finalFiles} emptyText="Their final files are the same." />
          </section>
        </>
      )}
    </main>
  );
}
