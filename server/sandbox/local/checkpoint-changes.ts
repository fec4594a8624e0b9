import type { FileChange } from "../types";
import type { HelperClient } from "./helper-client";
import { decodeEntry, Op, type EntryInfo } from "./protocol";
import { layerDir, type LayerStore } from "./layer-store";

/**
 * Files that differ between checkpoint `ref` and `baseRef` (null: the base filesystem).
 * Candidates are the entries of the layers between the two and their common ancestor (each
 * layer's dir is its diff against its parent; whiteouts are deletions); each candidate is then
 * looked up in both checkpoints so adds, deletes and edits are judged on the result, not on
 * the history (a file made then deleted within the range is no change).
 */
export async function checkpointChanges(
  store: LayerStore,
  helper: HelperClient,
  ref: string,
  baseRef: string | null,
): Promise<FileChange[]> {
  const chainA = store.chain(ref);
  const chainB = baseRef ? store.chain(baseRef) : [];
  const inB = new Set(chainB);
  const ancestor = chainA.find((id) => inB.has(id)) ?? null;
  const range = [...chainA.slice(0, ancestor ? chainA.indexOf(ancestor) : undefined)];
  if (baseRef) range.push(...chainB.slice(0, ancestor ? chainB.indexOf(ancestor) : undefined));

  const candidates = new Set<string>();
  for (const id of range) {
    for (const f of await helper.call(Op.scan, [layerDir(id)])) candidates.add(`/${decodeEntry(f).path}`);
  }
  if (candidates.size === 0) return [];
  const paths = [...candidates].sort();
  const lowersA = await store.lowersFor(ref, true);
  const lowersB = baseRef ? await store.lowersFor(baseRef, true) : store.baseOf(ref).lowers;
  const [inA, inBase] = await Promise.all([statAll(helper, lowersA, paths), statAll(helper, lowersB, paths)]);

  const out: FileChange[] = [];
  paths.forEach((p, i) => {
    const a = inA[i] ?? null;
    const b = inBase[i] ?? null;
    if (!a && !b) return;
    if (a && !b) out.push({ path: p, kind: "added", type: kindOf(a), size: a.size });
    else if (!a && b) out.push({ path: p, kind: "deleted", type: kindOf(b), size: b.size });
    else if (a && b && differs(a, b)) out.push({ path: p, kind: "modified", type: kindOf(a), size: a.size });
  });
  // A deleted directory is one change, not one per file it held.
  return out.filter((c) => c.kind !== "deleted" || !out.some((d) => d.kind === "deleted" && d.type === "dir" && c.path.startsWith(`${d.path}/`)));
}

async function statAll(helper: HelperClient, lowers: string[], paths: string[]): Promise<(EntryInfo | null)[]> {
  const f = await helper.call(Op.statMany, [lowers.join(":"), ...paths]);
  return f.map((b) => (b.length === 0 ? null : decodeEntry(b)));
}

function kindOf(e: EntryInfo): FileChange["type"] {
  return e.type === "f" ? "file" : e.type === "d" ? "dir" : e.type === "l" ? "symlink" : "other";
}

function differs(a: EntryInfo, b: EntryInfo): boolean {
  if (a.type !== b.type || a.mode !== b.mode || a.uid !== b.uid || a.gid !== b.gid) return true;
  // A directory's mtime moves whenever an entry in it changes; those entries are reported themselves.
  if (a.type === "d") return false;
  if (a.type === "l") return a.linkTarget !== b.linkTarget;
  return a.size !== b.size || a.mtimeNs !== b.mtimeNs;
}
