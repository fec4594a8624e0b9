"use client";

import { useState } from "react";
import type { FileDiff, FilesDiff } from "@/server/inspect/checkpoint-diff";

const KIND: Record<FileDiff["kind"], string> = {
  added: "text-green-700 dark:text-green-400",
  modified: "text-amber-700 dark:text-amber-400",
  deleted: "text-red-700 dark:text-red-400",
};

const WHY: Record<Exclude<FileDiff["view"], "diff">, string> = {
  binary: "binary file, not diffed",
  "too-large": "too large to diff here",
  "not-file": "not a regular file",
  unreadable: "content not readable from the checkpoint",
};

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** One changed file: a header that collapses, and its unified diff. */
export function FileDiffView({ file, initiallyOpen }: { file: FileDiff; initiallyOpen: boolean }) {
  const [open, setOpen] = useState(initiallyOpen);
  return (
    <div className="rounded border border-zinc-200 dark:border-zinc-800" data-testid="file-diff">
      <button
        type="button"
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        className="flex w-full items-center gap-2 bg-zinc-50 px-2 py-1 text-left font-mono text-xs hover:bg-zinc-100 dark:bg-zinc-900 dark:hover:bg-zinc-800"
      >
        <span className="w-3 text-zinc-400">{open ? "▾" : "▸"}</span>
        <span className={`w-14 shrink-0 ${KIND[file.kind]}`}>{file.kind}</span>
        <span className="min-w-0 flex-1 truncate" title={file.path}>
          {file.path}
        </span>
        {file.view === "diff" ? (
          <span className="shrink-0 tabular-nums">
            <span className="text-green-700 dark:text-green-400">+{file.added}</span>{" "}
            <span className="text-red-700 dark:text-red-400">−{file.removed}</span>
          </span>
        ) : (
          <span className="shrink-0 text-zinc-500">{formatBytes(file.size)}</span>
        )}
      </button>
      {open && (
        <div className="overflow-x-auto border-t border-zinc-200 font-mono text-xs leading-[18px] dark:border-zinc-800">
          {file.view !== "diff" ? (
            <p className="px-2 py-1.5 font-sans text-zinc-500">
              {WHY[file.view]} ({formatBytes(file.size)})
            </p>
          ) : file.hunks.length === 0 ? (
            <p className="px-2 py-1.5 font-sans text-zinc-500">no line changes (metadata only or empty file)</p>
          ) : (
            <table className="w-full border-collapse">
              <tbody>
                {file.hunks.map((h, hi) => {
                  let o = h.oldStart;
                  let n = h.newStart;
                  return [
                    <tr key={`h${hi}`} className="bg-blue-50 text-blue-800 dark:bg-blue-950/50 dark:text-blue-300">
                      <td colSpan={3} className="px-2">
                        @@ -{h.oldStart},{h.oldLines} +{h.newStart},{h.newLines} @@
                      </td>
                    </tr>,
                    ...h.lines.map((l, li) => {
                      const left = l.t === "+" ? "" : o++;
                      const right = l.t === "-" ? "" : n++;
                      const tone =
                        l.t === "+" ? "bg-green-50 dark:bg-green-950/40" : l.t === "-" ? "bg-red-50 dark:bg-red-950/40" : "";
                      return (
                        <tr key={`${hi}-${li}`} className={tone}>
                          <td className="w-10 select-none px-1 text-right text-zinc-400 dark:text-zinc-600">{left}</td>
                          <td className="w-10 select-none px-1 text-right text-zinc-400 dark:text-zinc-600">{right}</td>
                          <td className="whitespace-pre px-2">
                            <span className="select-none text-zinc-400">{l.t}</span>
                            {l.s}
                          </td>
                        </tr>
                      );
                    }),
                  ];
                })}
              </tbody>
            </table>
          )}
          {(file.truncated || file.approximate) && (
            <p className="border-t border-zinc-200 px-2 py-1 font-sans text-zinc-500 dark:border-zinc-800">
              {file.truncated ? "Diff cut at the per-file line limit. " : ""}
              {file.approximate ? "Too many changes for a minimal diff: shown as one replacement." : ""}
            </p>
          )}
        </div>
      )}
    </div>
  );
}

/** A list of changed files, or the reason there is none to show. */
export function FilesDiffList({ diff, emptyText }: { diff: FilesDiff; emptyText: string }) {
  if (diff.status !== "ok") {
    return (
      <p className="rounded border border-dashed border-zinc-300 px-3 py-2 text-zinc-600 dark:border-zinc-700 dark:text-zinc-400" data-testid="files-unavailable">
        {diff.message}
      </p>
    );
  }
  if (diff.files.length === 0) return <p className="text-zinc-500">{emptyText}</p>;
  const added = diff.files.reduce((s, f) => s + f.added, 0);
  const removed = diff.files.reduce((s, f) => s + f.removed, 0);
  return (
    <div className="flex flex-col gap-2">
      <p className="text-xs text-zinc-500">
        {diff.files.length + diff.omitted} file{diff.files.length + diff.omitted === 1 ? "" : "s"} changed ·{" "}
        <span className="text-green-700 dark:text-green-400">+{added}</span> <span className="text-red-700 dark:text-red-400">−{removed}</span>
        {diff.omitted > 0 && ` · ${diff.omitted} more not listed`}
      </p>
      {diff.files.map((f) => (
        <FileDiffView key={f.path} file={f} initiallyOpen={diff.files.length <= 8} />
      ))}
    </div>
  );
}
