"use client";

import { useMemo, useState } from "react";

const LINE_PX = 18;
/** Longer lines are cut into rows of this many characters so every row has one fixed height. */
const ROW_CHARS = 240;
const OVERSCAN = 20;

/** Rows of fixed height from text: one per line, long lines wrapped at ROW_CHARS. */
export function toRows(text: string): { text: string; cont: boolean }[] {
  const rows: { text: string; cont: boolean }[] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    if (line.length <= ROW_CHARS) rows.push({ text: line, cont: false });
    else for (let i = 0; i < line.length; i += ROW_CHARS) rows.push({ text: line.slice(i, i + ROW_CHARS), cont: i > 0 });
    start = end + 1;
  }
  if (rows.length > 1 && rows[rows.length - 1]!.text === "" && text.endsWith("\n")) rows.pop();
  return rows;
}

/**
 * Monospace text drawn as a windowed list: only the rows in view are in the DOM, so a
 * 1 MB tool output opens as fast as a short one. Rows have one fixed height.
 */
export function VirtualText({ text, maxHeightPx = 420, testId }: { text: string; maxHeightPx?: number; testId?: string }) {
  const rows = useMemo(() => toRows(text), [text]);
  const [top, setTop] = useState(0);
  const height = Math.min(maxHeightPx, rows.length * LINE_PX + 8);
  const first = Math.max(0, Math.floor(top / LINE_PX) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((top + height) / LINE_PX) + OVERSCAN);
  const gutter = String(rows.length).length;
  return (
    <div
      className="relative overflow-auto rounded border border-zinc-200 bg-zinc-50 font-mono text-xs dark:border-zinc-800 dark:bg-zinc-900"
      style={{ height }}
      onScroll={(e) => setTop(e.currentTarget.scrollTop)}
      data-testid={testId}
      data-rows={rows.length}
    >
      <div style={{ height: rows.length * LINE_PX + 8, position: "relative" }}>
        {rows.slice(first, last).map((row, i) => (
          <div
            key={first + i}
            className="absolute left-0 right-0 flex whitespace-pre px-2"
            style={{ top: 4 + (first + i) * LINE_PX, height: LINE_PX, lineHeight: `${LINE_PX}px` }}
          >
            <span className="mr-3 shrink-0 select-none text-right text-zinc-400 dark:text-zinc-600" style={{ width: `${gutter}ch` }}>
              {row.cont ? "↪" : first + i + 1}
            </span>
            <span>{row.text}</span>
          </div>
        ))}
      </div>
    </div>
  );
}
