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
    const s = stackSegments(src, "L600", 600);
    expect(s).toEqual([
      "L600", "L599", "L598", "L597", "L596", "L595", "L594", "L593",
      "S592-1", "S576-1", "S560-1", "S544-1", "S528-1", "S512-2", "S256-2",
    ]);
    let worst = 0;
    for (let d = 1; d <= 600; d++) worst = Math.max(worst, stackSegments(src, `L${d}`, d).length);
    expect(worst).toBeLessThanOrEqual(45);
  });

  it("builds a level-2 squash from level-1 squashes only", () => {
    const src = chain(256, true);
    expect(stackSegments(src, "L256", 256, 1)).toHaveLength(16);
  });

  it("schedules squashes at aligned depths", () => {
    expect(squashLevelsEndingAt(15)).toEqual([]);
    expect(squashLevelsEndingAt(16)).toEqual([1]);
    expect(squashLevelsEndingAt(512)).toEqual([1, 2]);
  });
});
