/**
 * Unified line diffs, computed on the server so the browser only draws them.
 * Pure: no I/O, no Node APIs, so it is unit-tested on its own.
 */

/** One line of a hunk: " " context, "-" removed, "+" added. */
export interface DiffLine {
  t: " " | "-" | "+";
  s: string;
}

/** A run of changes with its surrounding context, as in `diff -u` (1-based starts). */
export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}

export interface LineDiff {
  hunks: Hunk[];
  added: number;
  removed: number;
  /** the edit was larger than `maxEditDistance`: the hunks show the whole change as one replacement */
  approximate: boolean;
  /** more than `maxLines` lines of hunks: the rest was cut */
  truncated: boolean;
}

export interface LineDiffOptions {
  /** lines of unchanged context around each change */
  context?: number;
  /** stop Myers' search past this many edits (its cost is O((N+M)·D)) and show a plain replacement instead */
  maxEditDistance?: number;
  /** cap on the lines of all hunks together */
  maxLines?: number;
}

/** Split text into lines; a final newline does not make an empty last line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

type Op = 0 | 1 | 2; // 0 equal, 1 delete (old), 2 insert (new)

/**
 * Myers' O((N+M)·D) greedy algorithm on the middle part left after trimming the
 * common prefix and suffix (most agent edits touch a few lines of a long file, so
 * the middle is short). Returns the edit script, or null when D exceeds the cap.
 */
function myers(a: readonly string[], b: readonly string[], maxD: number): Op[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxD);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return null;
  // Walk back through the saved frontiers; trace[d] holds V as it was before step d, for k in [-d-1, d+1].
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = found; d >= 0; d--) {
    const prev = trace[d]!;
    const at = (k: number) => prev[k + d + 1]!;
    const k = x - y;
    const pk = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const px = d === 0 ? 0 : at(pk);
    const py = d === 0 ? 0 : px - pk;
    while (x > px && y > py) {
      ops.push(0);
      x--;
      y--;
    }
    if (d > 0) {
      if (x === px) {
        ops.push(2);
        y--;
      } else {
        ops.push(1);
        x--;
      }
    }
  }
  ops.reverse();
  return ops;
}

/** The edit script from old to new lines. */
export function diffOps(a: readonly string[], b: readonly string[], maxEditDistance = 4000): { ops: Op[]; approximate: boolean } {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const midA = a.slice(pre, a.length - suf);
  const midB = b.slice(pre, b.length - suf);
  let mid = midA.length === 0 || midB.length === 0 ? null : myers(midA, midB, maxEditDistance);
  let approximate = false;
  if (mid === null) {
    approximate = midA.length > 0 && midB.length > 0;
    mid = [...new Array<Op>(midA.length).fill(1), ...new Array<Op>(midB.length).fill(2)];
  }
  return { ops: [...new Array<Op>(pre).fill(0), ...mid, ...new Array<Op>(suf).fill(0)], approximate };
}

/** A unified diff of two texts, grouped into hunks with `context` lines around changes. */
export function lineDiff(oldText: string, newText: string, options: LineDiffOptions = {}): LineDiff {
  const context = options.context ?? 3;
  const maxLines = options.maxLines ?? 5000;
  const a = splitLines(oldText);
  const b = splitLines(newText);
  const { ops, approximate } = diffOps(a, b, options.maxEditDistance);

  // Positions (in ops) of changes, then windows of ±context merged when they touch.
  const hunks: Hunk[] = [];
  let added = 0;
  let removed = 0;
  let emitted = 0;
  let truncated = false;
  // oldAt[i]/newAt[i]: line numbers (0-based) before op i.
  const oldAt = new Int32Array(ops.length + 1);
  const newAt = new Int32Array(ops.length + 1);
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    oldAt[i + 1] = oldAt[i]! + (op === 2 ? 0 : 1);
    newAt[i + 1] = newAt[i]! + (op === 1 ? 0 : 1);
    if (op === 1) removed++;
    if (op === 2) added++;
  }
  let i = 0;
  while (i < ops.length) {
    if (ops[i] === 0) {
      i++;
      continue;
    }
    const start = Math.max(0, i - context);
    let end = i;
    // Extend while the next change is within 2·context equal lines.
    for (;;) {
      while (end < ops.length && ops[end] !== 0) end++;
      let j = end;
      while (j < ops.length && ops[j] === 0 && j - end < 2 * context) j++;
      if (j < ops.length && ops[j] !== 0) end = j;
      else break;
    }
    const stop = Math.min(ops.length, end + context);
    const lines: DiffLine[] = [];
    for (let k = start; k < stop; k++) {
      const op = ops[k]!;
      lines.push(op === 0 ? { t: " ", s: a[oldAt[k]!]! } : op === 1 ? { t: "-", s: a[oldAt[k]!]! } : { t: "+", s: b[newAt[k]!]! });
    }
    const oldLines = oldAt[stop]! - oldAt[start]!;
    const newLines = newAt[stop]! - newAt[start]!;
    if (emitted + lines.length > maxLines) {
      truncated = true;
      const room = maxLines - emitted;
      if (room > 0) hunks.push({ oldStart: oldAt[start]! + (oldLines > 0 ? 1 : 0), oldLines, newStart: newAt[start]! + (newLines > 0 ? 1 : 0), newLines, lines: lines.slice(0, room) });
      break;
    }
    emitted += lines.length;
    hunks.push({ oldStart: oldAt[start]! + (oldLines > 0 ? 1 : 0), oldLines, newStart: newAt[start]! + (newLines > 0 ? 1 : 0), newLines, lines });
    i = stop;
  }
  return { hunks, added, removed, approximate, truncated };
}

/** The hunks as `diff -u` prints them (without file headers), for tests and plain-text export. */
export function formatHunks(hunks: readonly Hunk[]): string {
  const out: string[] = [];
  for (const h of hunks) {
    out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    for (const l of h.lines) out.push(`${l.t}${l.s}`);
  }
  return out.join("\n");
}
