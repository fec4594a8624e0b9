"use client";

import { useState } from "react";
import type { TurnDetail } from "@/server/inspect/get-turn-detail";
import { formatDate } from "@/components/ui/format";
import { useAddAnnotation } from "./use-add-annotation";
import { useDeleteAnnotation } from "./use-delete-annotation";

const LABELS = ["went wrong here", "resume from here", "good step", "note"];

/** The marks people left on this turn, a form to add one, and delete buttons. */
export function AnnotationsTab({ taskId, turn, autoFocus }: { taskId: string; turn: TurnDetail; autoFocus?: boolean }) {
  const add = useAddAnnotation(taskId, turn.id);
  const remove = useDeleteAnnotation(taskId);
  const [label, setLabel] = useState(LABELS[0]!);
  const [note, setNote] = useState("");
  return (
    <div className="flex flex-col gap-4" data-testid="annotations">
      {turn.annotations.length === 0 ? (
        <p className="text-zinc-500">No annotations on this turn yet.</p>
      ) : (
        <ul className="flex flex-col gap-2">
          {turn.annotations.map((a) => (
            <li key={a.id} className="flex items-start gap-2 rounded border border-zinc-200 px-2 py-1.5 dark:border-zinc-800">
              <span className="mt-0.5 h-2 w-2 shrink-0 rounded-full bg-amber-500" />
              <div className="min-w-0 flex-1">
                <p className="font-medium">{a.label}</p>
                {a.note && <p className="whitespace-pre-wrap text-zinc-600 dark:text-zinc-400">{a.note}</p>}
                <p className="text-xs text-zinc-500">
                  {a.author} · {formatDate(a.createdAt)}
                </p>
              </div>
              <button
                type="button"
                className="text-xs text-zinc-500 hover:text-red-600 disabled:opacity-50"
                disabled={remove.isPending}
                onClick={() => remove.mutate(a.id)}
                aria-label={`delete annotation ${a.label}`}
              >
                delete
              </button>
            </li>
          ))}
        </ul>
      )}
      {remove.error && <p className="text-red-600">Could not delete: {remove.error.message}</p>}
      <form
        className="flex flex-col gap-2 border-t border-zinc-200 pt-3 dark:border-zinc-800"
        onSubmit={(e) => {
          e.preventDefault();
          if (add.isPending || !label.trim()) return;
          add.mutate({ label: label.trim(), note: note.trim() || undefined }, { onSuccess: () => setNote("") });
        }}
      >
        <div className="flex flex-wrap gap-1">
          {LABELS.map((l) => (
            <button
              key={l}
              type="button"
              onClick={() => setLabel(l)}
              aria-pressed={label === l}
              className={`rounded-full border px-2 py-0.5 text-xs ${label === l ? "border-amber-500 bg-amber-50 text-amber-900 dark:bg-amber-950/50 dark:text-amber-200" : "border-zinc-300 dark:border-zinc-700"}`}
            >
              {l}
            </button>
          ))}
        </div>
        <input
          value={label}
          onChange={(e) => setLabel(e.target.value)}
          aria-label="label"
          className="rounded border border-zinc-300 bg-transparent px-2 py-1 dark:border-zinc-700"
        />
        <textarea
          value={note}
          onChange={(e) => setNote(e.target.value)}
          placeholder="Note (optional): what happened, what to try instead"
          rows={3}
          autoFocus={autoFocus}
          aria-label="note"
          className="rounded border border-zinc-300 bg-transparent px-2 py-1 dark:border-zinc-700"
        />
        <div className="flex items-center gap-2">
          <button
            type="submit"
            disabled={add.isPending || !label.trim()}
            className="rounded bg-zinc-900 px-3 py-1 text-white disabled:opacity-50 dark:bg-zinc-100 dark:text-zinc-900"
          >
            {add.isPending ? "Saving…" : "Add annotation"}
          </button>
          {add.error && <span className="text-red-600">Could not save: {add.error.message}</span>}
        </div>
      </form>
    </div>
  );
}
