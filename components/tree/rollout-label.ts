import type { TreeRollout } from "@/server/tree/tree-types";

/** A rollout's short name as people say it: "root 2", "branch 1.3" (review round . ordinal), "human 1". */
export function rolloutLabel(r: Pick<TreeRollout, "kind" | "ordinal" | "round">): string {
  if (r.kind === "root") return `root ${r.ordinal + 1}`;
  if (r.kind === "branch") return `branch ${r.round}.${r.ordinal + 1}`;
  return `${r.kind} ${r.ordinal + 1}`;
}
