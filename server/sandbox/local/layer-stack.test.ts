import { describe, expect, it } from "vitest";
import { SQUASH_FANOUT, squashLevelsEndingAt, stackSegments, type StackLayer, type StackSource } from "./layer-stack";

function chain(n: number, squashAll: boolean): StackSource {
  const layers = new Map<string, StackLayer>();
  for (let d = 1; d <= n; d++) layers.set(`L${d}`, { id: `L${d}`, parent: d > 1 ? `L${d - 1}` : null, depth: d });
  return {
    layer: (id) => layers.get(id),
    squash: (top, level) => {
      const d = layers.get(top)?.depth ?? 0;
      return squashAll && d % SQUASH_FANOUT ** level === 0 ? `S${d}-${level}` : undefined;
    },
    layerDir: (id) => id,
  };
}

describe("layer stack", () => {
  it("without squashes stacks every layer", () => {
    expect(stackSegments(chain(5, false), "L5", 5)).toEqual(["L5", "L4", "L3", "L2", "L1"]);
  });

  it("bounds the stack of a 600-checkpoint chain far below the kernel's 500", () => {
    const src = chain(600, true);
    expect(stackSegments(src, "L600", 600)).toEqual(["S600-1", "S596-1", "S592-2", "S576-3", "S512-4", "S256-4"]);
    expect(stackSegments(src, "L599", 599)).toEqual(["L599", "L598", "L597", "S596-1", "S592-2", "S576-3", "S512-4", "S256-4"]);
    let worst = 0;
    for (let d = 1; d <= 600; d++) worst = Math.max(worst, stackSegments(src, `L${d}`, d).length);
    expect(worst).toBeLessThanOrEqual(18);
  });

  it("builds a level-2 squash from level-1 squashes only", () => {
    const src = chain(16, true);
    expect(stackSegments(src, "L16", 16, 1)).toEqual(["S16-1", "S12-1", "S8-1", "S4-1"]);
  });

  it("schedules squashes at aligned depths", () => {
    expect(squashLevelsEndingAt(3)).toEqual([]);
    expect(squashLevelsEndingAt(4)).toEqual([1]);
    expect(squashLevelsEndingAt(16)).toEqual([1, 2]);
    expect(squashLevelsEndingAt(512)).toEqual([1, 2, 3, 4]);
  });
});
