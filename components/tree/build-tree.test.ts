import { describe, expect, it } from "vitest";
import type { TaskTree, TreeRollout } from "@/server/tree/tree-types";
import type { RolloutId, TaskId, TurnId } from "@/server/db/ids";
import { buildTree, nodeTone, type VisNode } from "./build-tree";

interface Spec {
  rollouts: Pick<TreeRollout, "status" | "reward">[];
  /** [id, parent id or null, rollout index, annotations?] */
  turns: [string, string | null, number, number?][];
}

function make(spec: Spec): TaskTree {
  const ids = spec.turns.map((t) => t[0]);
  return {
    taskId: "t" as TaskId,
    rollouts: spec.rollouts.map((r, i) => ({
      id: `r${i}` as RolloutId,
      kind: i === 0 ? "root" : "branch",
      round: 0,
      ordinal: i,
      branchedFromTurnId: null,
      experimentId: null,
      ...r,
    })),
    tools: ["bash"],
    authors: ["agent", "human"],
    turns: {
      id: ids as TurnId[],
      parent: spec.turns.map((t) => (t[1] === null ? -1 : ids.indexOf(t[1]))),
      rollout: spec.turns.map((t) => t[2]),
      index: spec.turns.map((t) => Number(t[0].replace(/\D/g, "")) || 0),
      tool: spec.turns.map(() => 0),
      author: spec.turns.map(() => 0),
      isError: spec.turns.map(() => 0),
      hasCheckpoint: spec.turns.map(() => 1),
      annotations: spec.turns.map((t) => t[3] ?? 0),
    },
  };
}

const shape = (n: VisNode): unknown => (n.children.length ? { [n.key]: n.children.map(shape) } : n.key);

describe("buildTree", () => {
  it("collapses straight runs and keeps forks", () => {
    // root a1..a6 failed; branch b3..b5 from a2 resolved.
    const tree = make({
      rollouts: [
        { status: "completed", reward: 0 },
        { status: "completed", reward: 1 },
      ],
      turns: [
        ["a1", null, 0],
        ["a2", "a1", 0],
        ["a3", "a2", 0],
        ["a4", "a3", 0],
        ["a5", "a4", 0],
        ["a6", "a5", 0],
        ["b3", "a2", 1],
        ["b4", "b3", 1],
        ["b5", "b4", 1],
      ],
    });
    const root = buildTree(tree, { minRun: 3 });
    expect(shape(root)).toEqual({ start: [{ a1: [{ a2: ["seg:a3", "seg:b3"] }] }] });
    expect(root.outcomes).toMatchObject({ resolved: 1, failed: 1 });
    const a2 = root.children[0]!.children[0]!;
    expect(nodeTone(a2.outcomes)).toBe("mixed");
    expect(a2.children.map((c) => [c.turns.length, nodeTone(c.outcomes)])).toEqual([
      [4, "failed"],
      [3, "resolved"],
    ]);
  });

  it("expands a segment on request and breaks runs at annotations", () => {
    const tree = make({
      rollouts: [{ status: "running", reward: null }],
      turns: [
        ["a1", null, 0],
        ["a2", "a1", 0],
        ["a3", "a2", 0, 1],
        ["a4", "a3", 0],
        ["a5", "a4", 0],
        ["a6", "a5", 0],
        ["a7", "a6", 0],
      ],
    });
    const collapsed = buildTree(tree, { minRun: 3 });
    // a1 a2 are too short to collapse, a3 is annotated, a4..a7 collapse.
    expect(shape(collapsed)).toEqual({ start: [{ a1: [{ a2: [{ a3: ["seg:a4"] }] }] }] });
    expect(nodeTone(collapsed.outcomes)).toBe("running");
    const open = buildTree(tree, { minRun: 3, expanded: new Set(["seg:a4"]) });
    expect(shape(open)).toEqual({ start: [{ a1: [{ a2: [{ a3: [{ a4: [{ a5: [{ a6: ["a7"] }] }] }] }] }] }] });
  });

  it("handles a 10,000-turn chain without recursion", () => {
    const turns: [string, string | null, number][] = [];
    for (let i = 0; i < 10_000; i++) turns.push([`t${i}`, i === 0 ? null : `t${i - 1}`, 0]);
    const root = buildTree(make({ rollouts: [{ status: "completed", reward: 1 }], turns }), {
      expanded: new Set(["seg:t0"]),
    });
    let depth = 0;
    for (let node: VisNode | undefined = root; node; node = node.children[0]) depth++;
    expect(depth).toBe(10_001);
  });
});

describe("human turns and hidden turns", () => {
  it("never hides a human or hint turn inside a segment, and finds the segment hiding a turn", async () => {
    const { segmentHiding } = await import("./build-tree");
    const tree = make({
      rollouts: [{ status: "completed", reward: 0 }],
      turns: [
        ["a1", null, 0],
        ["a2", "a1", 0],
        ["a3", "a2", 0],
        ["a4", "a3", 0],
        ["a5", "a4", 0],
        ["a6", "a5", 0],
        ["a7", "a6", 0],
        ["a8", "a7", 0],
      ],
    });
    tree.turns.author[4] = 1;
    const root = buildTree(tree, { minRun: 3 });
    expect(shape(root)).toEqual({ start: [{ "seg:a1": [{ a5: ["seg:a6"] }] }] });
    expect(segmentHiding(root, 6)).toBe("seg:a6");
    expect(segmentHiding(root, 4)).toBeNull();
  });
});
