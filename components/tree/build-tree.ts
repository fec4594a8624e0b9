import type { TaskTree, TreeRollout } from "@/server/tree/tree-types";

/** How a rollout ended, as the tree colours it. */
export type Outcome = "resolved" | "failed" | "running" | "interrupted" | "pending";

export type OutcomeCounts = Record<Outcome, number>;

export function rolloutOutcome(r: Pick<TreeRollout, "status" | "reward">): Outcome {
  if (r.status === "running") return "running";
  if (r.status === "pending") return "pending";
  if (r.status === "interrupted" || r.status === "cancelled") return "interrupted";
  return (r.reward ?? 0) >= 1 ? "resolved" : "failed";
}

const zero = (): OutcomeCounts => ({ resolved: 0, failed: 0, running: 0, interrupted: 0, pending: 0 });

/** A node as drawn: the task's start, one turn, or a collapsed straight run of turns. */
export interface VisNode {
  key: string;
  kind: "start" | "turn" | "segment";
  /** indices into the tree's turn arrays: one for a turn, the run for a segment, none for the start */
  turns: number[];
  /** outcomes of the rollouts that end in this node's subtree */
  outcomes: OutcomeCounts;
  children: VisNode[];
}

export interface BuildOptions {
  /** keys of segments the user expanded ("seg:<first turn id>") */
  expanded?: ReadonlySet<string>;
  /** shortest straight run that collapses into a segment */
  minRun?: number;
}

/**
 * Builds the drawable tree in O(n) without recursion (trees can be 10,000 turns
 * deep along one rollout): children lists in one counting pass, outcome counts in
 * one reverse BFS pass, then one BFS that emits nodes and collapses straight runs.
 * A rollout counts below a node when its last turn lies in that node's subtree,
 * which is exactly the set of rollouts whose trajectory passes through the node.
 */
export function buildTree(tree: TaskTree, options: BuildOptions = {}): VisNode {
  const { turns, rollouts } = tree;
  const expanded = options.expanded ?? new Set<string>();
  const minRun = options.minRun ?? 4;
  const n = turns.id.length;
  const START = n;

  // Children in compressed form: childStart[p]..childStart[p+1] index into childList.
  const childStart = new Int32Array(n + 2);
  for (let i = 0; i < n; i++) {
    const p = turns.parent[i] ?? -1;
    childStart[(p < 0 ? START : p) + 1]! += 1;
  }
  for (let p = 0; p <= n; p++) childStart[p + 1]! += childStart[p]!;
  const fill = childStart.slice();
  const childList = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = turns.parent[i] ?? -1;
    childList[fill[p < 0 ? START : p]!++] = i;
  }
  const childCount = (p: number) => childStart[p + 1]! - childStart[p]!;

  // Each rollout ends at its deepest turn; rollouts without turns sit at their fork.
  const own: OutcomeCounts[] = [];
  const lastTurn = new Int32Array(rollouts.length).fill(-1);
  for (let i = 0; i < n; i++) {
    const r = turns.rollout[i] ?? -1;
    if (r >= 0 && (lastTurn[r] === -1 || (turns.index[i] ?? 0) >= (turns.index[lastTurn[r]!] ?? 0))) lastTurn[r] = i;
  }
  const turnIndexById = new Map<string, number>();
  for (let i = 0; i < n; i++) turnIndexById.set(turns.id[i]!, i);
  rollouts.forEach((r, ri) => {
    const at = lastTurn[ri] !== -1 ? lastTurn[ri]! : r.branchedFromTurnId ? (turnIndexById.get(r.branchedFromTurnId) ?? START) : START;
    (own[at] ??= zero())[rolloutOutcome(r)] += 1;
  });

  // BFS order from the start, then sums from the leaves up.
  const order = new Int32Array(n + 1);
  let head = 0;
  let tail = 0;
  order[tail++] = START;
  while (head < tail) {
    const p = order[head++]!;
    for (let k = childStart[p]!; k < childStart[p + 1]!; k++) order[tail++] = childList[k]!;
  }
  const below: OutcomeCounts[] = Array.from({ length: n + 1 }, (_, i) => ({ ...zero(), ...own[i] }));
  for (let k = tail - 1; k > 0; k--) {
    const i = order[k]!;
    const p = turns.parent[i] ?? -1;
    const into = below[p < 0 ? START : p]!;
    const from = below[i]!;
    into.resolved += from.resolved;
    into.failed += from.failed;
    into.running += from.running;
    into.interrupted += from.interrupted;
    into.pending += from.pending;
  }

  const root: VisNode = { key: "start", kind: "start", turns: [], outcomes: below[START]!, children: [] };
  // Work list of (turn whose children to emit, the node they attach to).
  const work: [number, VisNode][] = [[START, root]];
  // A run stays straight while each turn has one child of the same rollout, no annotations,
  // and an agent as author: annotated, human and hint turns always stay visible on their own.
  const plain = (i: number) => (turns.annotations[i] ?? 0) === 0 && (turns.author[i] ?? 0) === 0;
  const continues = (i: number) => {
    if (childCount(i) !== 1 || !plain(i)) return -1;
    const c = childList[childStart[i]!]!;
    return turns.rollout[c] === turns.rollout[i] && plain(c) ? c : -1;
  };
  while (work.length > 0) {
    const [p, into] = work.pop()!;
    for (let k = childStart[p]!; k < childStart[p + 1]!; k++) {
      const first = childList[k]!;
      const run = [first];
      for (let c = continues(first); c !== -1; c = continues(c)) run.push(c);
      const last = run[run.length - 1]!;
      const segKey = `seg:${turns.id[first]}`;
      if (run.length >= minRun && !expanded.has(segKey)) {
        const node: VisNode = { key: segKey, kind: "segment", turns: run, outcomes: below[last]!, children: [] };
        into.children.push(node);
        work.push([last, node]);
      } else {
        let parent = into;
        for (const i of run) {
          const node: VisNode = { key: turns.id[i]!, kind: "turn", turns: [i], outcomes: below[i]!, children: [] };
          parent.children.push(node);
          parent = node;
        }
        work.push([last, parent]);
      }
    }
  }
  return root;
}

/** The colour class of a node: its outcome when all rollouts below agree, else "mixed". */
export function nodeTone(o: OutcomeCounts): Outcome | "mixed" {
  if (o.running > 0) return "running";
  const kinds = (["resolved", "failed", "interrupted", "pending"] as const).filter((k) => o[k] > 0);
  if (kinds.length === 0) return "pending";
  return kinds.length === 1 ? kinds[0]! : "mixed";
}

/** The key of the collapsed segment that hides turn `turnIndex` (an index into the tree's arrays), if any. */
export function segmentHiding(root: VisNode, turnIndex: number): string | null {
  const stack = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.kind === "segment" && n.turns.includes(turnIndex)) return n.key;
    for (const c of n.children) stack.push(c);
  }
  return null;
}
