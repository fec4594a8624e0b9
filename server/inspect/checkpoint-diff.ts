import type { FileChange, SandboxDriver } from "../sandbox/types";
import { lineDiff, type Hunk } from "./line-diff";

/** A checkpoint as the diff needs it. */
export interface DiffSide {
  checkpointId: string;
  backend: string;
  ref: string;
  state: string;
}

/** How one changed file is shown: a line diff, or why not. */
export type FileView = "diff" | "binary" | "too-large" | "not-file" | "unreadable";

export interface FileDiff {
  path: string;
  kind: FileChange["kind"];
  type: FileChange["type"];
  /** size in bytes on the newer side (the older side for a deletion) */
  size: number;
  view: FileView;
  added: number;
  removed: number;
  hunks: Hunk[];
  /** the diff was cut at the per-file line cap */
  truncated: boolean;
  /** the change was too large for a minimal diff and is shown as one replacement */
  approximate: boolean;
}

/** The files changed between two checkpoints, or why they cannot be shown. */
export type FilesDiff =
  | { status: "ok"; files: FileDiff[]; /** changed files beyond the cap, listed by count only */ omitted: number }
  | { status: "no-checkpoint" | "collected" | "unavailable"; message: string; files: []; omitted: 0 };

export interface DiffLimits {
  /** files whose content is read and diffed; further changes are listed without a diff */
  maxDiffedFiles: number;
  /** changes listed at all */
  maxListedFiles: number;
  /** a side larger than this is summarised, not diffed */
  maxFileBytes: number;
  /** lines of hunks per file */
  maxLinesPerFile: number;
}

export const DEFAULT_DIFF_LIMITS: DiffLimits = { maxDiffedFiles: 200, maxListedFiles: 1000, maxFileBytes: 512 * 1024, maxLinesPerFile: 2000 };

const unavailable = (status: "no-checkpoint" | "collected" | "unavailable", message: string): FilesDiff => ({ status, message, files: [], omitted: 0 });

/** A NUL byte in the first 8 KB marks a file as binary, as git does. */
function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8000).includes(0);
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

/**
 * Files changed from `base` to `target`, each with a unified line diff computed
 * here (the browser only draws it). `base` null means the driver's base filesystem,
 * whose files cannot be read back: modified files then show as unreadable. The
 * driver may be given as a loader, called only when a diff really needs it.
 */
export async function diffCheckpoints(
  driverOrLoader: SandboxDriver | (() => Promise<SandboxDriver>),
  target: DiffSide | null,
  base: DiffSide | null,
  limits: DiffLimits = DEFAULT_DIFF_LIMITS,
): Promise<FilesDiff> {
  if (!target) return unavailable("no-checkpoint", "This turn has no checkpoint, so there are no files to show.");
  if (target.state !== "live" || (base && base.state !== "live")) {
    return unavailable("collected", "A checkpoint this diff needs was garbage-collected; its files are gone.");
  }
  let driver: SandboxDriver;
  try {
    driver = typeof driverOrLoader === "function" ? await driverOrLoader() : driverOrLoader;
  } catch (error) {
    return unavailable("unavailable", `The sandbox driver is not available on this server: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const side of [target, base]) {
    if (!side) continue;
    if (side.backend !== driver.name) {
      return unavailable("unavailable", `The checkpoint was made by the ${side.backend} driver; this server runs the ${driver.name} driver.`);
    }
  }
  let changes: FileChange[];
  try {
    changes = await driver.changes(target.ref, base?.ref ?? null);
  } catch (error) {
    return unavailable("unavailable", `The sandbox driver could not list the changes: ${error instanceof Error ? error.message : String(error)}`);
  }
  changes.sort((a, b) => a.path.localeCompare(b.path));
  const listed = changes.slice(0, limits.maxListedFiles);
  let diffed = 0;
  const files = await mapLimit(listed, 8, async (c): Promise<FileDiff> => {
    const file: FileDiff = { path: c.path, kind: c.kind, type: c.type, size: c.size, view: "diff", added: 0, removed: 0, hunks: [], truncated: false, approximate: false };
    if (c.type !== "file") return { ...file, view: "not-file" };
    if (c.size > limits.maxFileBytes) return { ...file, view: "too-large" };
    if (diffed >= limits.maxDiffedFiles) return { ...file, view: "too-large" };
    diffed++;
    try {
      const [after, before] = await Promise.all([
        c.kind === "deleted" ? Promise.resolve(Buffer.alloc(0)) : driver.readCheckpointFile(target.ref, c.path),
        c.kind === "added" ? Promise.resolve(Buffer.alloc(0)) : base ? driver.readCheckpointFile(base.ref, c.path) : Promise.resolve(null),
      ]);
      if (after === null || before === null) return { ...file, view: "unreadable" };
      if (after.length > limits.maxFileBytes || before.length > limits.maxFileBytes) return { ...file, view: "too-large" };
      if (isBinary(after) || isBinary(before)) return { ...file, view: "binary" };
      const d = lineDiff(before.toString("utf8"), after.toString("utf8"), { maxLines: limits.maxLinesPerFile });
      return { ...file, size: c.kind === "deleted" ? before.length : after.length, ...d };
    } catch {
      return { ...file, view: "unreadable" };
    }
  });
  return { status: "ok", files, omitted: changes.length - listed.length };
}

/** The checkpoint row fields a diff side is made from. */
export function diffSide(row: { id: string; backend: string; ref: string; state: string } | null | undefined): DiffSide | null {
  return row ? { checkpointId: row.id, backend: row.backend, ref: row.ref, state: row.state } : null;
}
