"use client";

import type { TurnDetail } from "@/server/inspect/get-turn-detail";
import { showToolCall } from "./tool-call";
import { VirtualText } from "./virtual-text";

function Section({ title, children, aside }: { title: string; children: React.ReactNode; aside?: React.ReactNode }) {
  return (
    <section className="flex flex-col gap-1">
      <h3 className="flex items-center gap-2 text-[11px] font-semibold uppercase tracking-wide text-zinc-500">
        {title}
        {aside && <span className="font-normal normal-case tracking-normal">{aside}</span>}
      </h3>
      {children}
    </section>
  );
}

/** The turn as the agent saw and did it: its text, its tool call, what the tool returned. */
export function TurnTab({ turn }: { turn: TurnDetail }) {
  const call = showToolCall(turn.content.toolCall);
  const kb = turn.content.observationBytes / 1024;
  return (
    <div className="flex flex-col gap-4">
      {turn.rollout.startingHint && turn.author !== "agent" && (
        <Section title="Starting hint">
          <p className="whitespace-pre-wrap rounded bg-amber-50 px-2 py-1.5 dark:bg-amber-950/40">{turn.rollout.startingHint}</p>
        </Section>
      )}
      <Section title="Assistant">
        {turn.content.assistantMessage ? (
          <p className="max-h-64 overflow-auto whitespace-pre-wrap leading-relaxed" data-testid="assistant-message">
            {turn.content.assistantMessage}
          </p>
        ) : (
          <p className="text-zinc-500">(no text)</p>
        )}
      </Section>
      <Section title="Tool call" aside={turn.exitCode !== null && <span className={turn.isError ? "text-red-600" : "text-zinc-500"}>exit {turn.exitCode}</span>}>
        {call ? (
          <pre className="max-h-72 overflow-auto rounded border border-zinc-200 bg-zinc-50 px-2 py-1.5 font-mono text-xs dark:border-zinc-800 dark:bg-zinc-900" data-testid="tool-call">
            <span className="font-semibold text-blue-700 dark:text-blue-400">{call.name}</span>
            {"\n"}
            {call.args}
          </pre>
        ) : (
          <p className="text-zinc-500">(no tool call)</p>
        )}
      </Section>
      <Section
        title="Observation"
        aside={<span className="text-zinc-500">{kb < 1 ? `${turn.content.observationBytes} B` : `${kb.toFixed(kb < 100 ? 1 : 0)} KiB`}</span>}
      >
        {turn.content.observation ? (
          <VirtualText text={turn.content.observation} testId="observation" />
        ) : (
          <p className="text-zinc-500" data-testid="observation">
            (empty)
          </p>
        )}
      </Section>
    </div>
  );
}
