import type { Layout, PlacedNode } from "./layout-tree";

export type Direction = "along" | "back" | "up" | "down";

/** Nodes per column (tree depth), each sorted top to bottom: arrows up/down move across branches in one column. */
export function columnsOf(layout: Layout): Map<number, PlacedNode[]> {
  const columns = new Map<number, PlacedNode[]>();
  for (const p of layout.nodes) {
    const col = columns.get(p.depth);
    if (col) col.push(p);
    else columns.set(p.depth, [p]);
  }
  for (const col of columns.values()) col.sort((a, b) => a.y - b.y);
  return columns;
}

/**
 * The node an arrow key leads to. Right goes along the branch: to the child that
 * continues the same rollout when there is one (so a path is followed through forks),
 * else the first child. Left goes back to the parent. Up and down go to the nearest
 * node above or below in the same column, which crosses into neighbouring branches.
 */
export function stepFrom(
  layout: Layout,
  columns: ReadonlyMap<number, readonly PlacedNode[]>,
  cur: PlacedNode,
  direction: Direction,
  rolloutOfTurn: (turnIndex: number) => number,
): PlacedNode | undefined {
  if (direction === "back") return cur.parent ?? undefined;
  if (direction === "along") {
    const kids = cur.node.children.map((c) => layout.byKey.get(c.key)).filter((p): p is PlacedNode => !!p);
    const lastTurn = cur.node.turns[cur.node.turns.length - 1];
    const mine = lastTurn === undefined ? -1 : rolloutOfTurn(lastTurn);
    return kids.find((k) => k.node.turns[0] !== undefined && rolloutOfTurn(k.node.turns[0]) === mine) ?? kids[0];
  }
  const col = columns.get(cur.depth) ?? [];
  // Binary search by y; ties are impossible in a tidy layout.
  let lo = 0;
  let hi = col.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (col[mid]!.y < cur.y) lo = mid + 1;
    else hi = mid;
  }
  return col[direction === "up" ? lo - 1 : lo + 1];
}
