import { describe, expect, it } from "vitest";
import type { VisNode } from "./build-tree";
import { layoutTree } from "./layout-tree";
import { columnsOf, stepFrom } from "./tree-navigation";

const zero = { resolved: 0, failed: 0, running: 0, interrupted: 0, pending: 0 };
const node = (key: string, turns: number[], children: VisNode[] = []): VisNode => ({ key, kind: key === "start" ? "start" : "turn", turns, outcomes: zero, children });

// start → a(0) → b(1) → c(2) (rollout 0); a → x(3) → y(4) (rollout 1); start → r(5) (rollout 2)
const rolloutOf = [0, 0, 0, 1, 1, 2];
const root = node("start", [], [node("a", [0], [node("x", [3], [node("y", [4])]), node("b", [1], [node("c", [2])])]), node("r", [5])]);

describe("stepFrom", () => {
  const layout = layoutTree(root);
  const cols = columnsOf(layout);
  const at = (k: string) => layout.byKey.get(k)!;
  const go = (k: string, d: "along" | "back" | "up" | "down") => stepFrom(layout, cols, at(k), d, (i) => rolloutOf[i]!)?.node.key;

  it("goes along the same rollout through a fork, and back to the parent", () => {
    expect(go("a", "along")).toBe("b");
    expect(go("x", "along")).toBe("y");
    expect(go("b", "back")).toBe("a");
    expect(go("start", "back")).toBeUndefined();
    expect(go("c", "along")).toBeUndefined();
  });

  it("crosses branches up and down within one column", () => {
    const col1 = cols.get(2)!.map((p) => p.node.key);
    expect(col1).toHaveLength(2);
    expect(go(col1[0]!, "down")).toBe(col1[1]);
    expect(go(col1[1]!, "up")).toBe(col1[0]);
    expect(go(col1[0]!, "up")).toBeUndefined();
  });
});
