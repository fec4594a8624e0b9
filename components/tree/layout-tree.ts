import { hierarchy, tree as d3tree, type HierarchyPointNode } from "d3-hierarchy";
import type { VisNode } from "./build-tree";

export const COLUMN_PX = 56;
export const ROW_PX = 22;
/** A collapsed segment is drawn wider than a turn so its length fits on it. */
export const SEGMENT_PX = 40;

export interface PlacedNode {
  node: VisNode;
  x: number;
  y: number;
  parent: PlacedNode | null;
  depth: number;
}

export interface Layout {
  nodes: PlacedNode[];
  byKey: Map<string, PlacedNode>;
  width: number;
  height: number;
  minY: number;
}

/** Left-to-right tidy tree (d3-hierarchy's Reingold–Tilford, O(n)). */
export function layoutTree(root: VisNode): Layout {
  const h = hierarchy(root, (d) => d.children);
  const laid = d3tree<VisNode>().nodeSize([ROW_PX, COLUMN_PX]).separation((a, b) => (a.parent === b.parent ? 1 : 1.3))(h);
  const nodes: PlacedNode[] = [];
  const byKey = new Map<string, PlacedNode>();
  const placed = new Map<HierarchyPointNode<VisNode>, PlacedNode>();
  let minY = 0;
  let maxY = 0;
  let maxX = 0;
  laid.each((d) => {
    const p: PlacedNode = { node: d.data, x: d.y, y: d.x, parent: d.parent ? (placed.get(d.parent) ?? null) : null, depth: d.depth };
    placed.set(d, p);
    nodes.push(p);
    byKey.set(d.data.key, p);
    minY = Math.min(minY, p.y);
    maxY = Math.max(maxY, p.y);
    maxX = Math.max(maxX, p.x);
  });
  return { nodes, byKey, width: maxX + COLUMN_PX, height: maxY - minY + ROW_PX, minY };
}
