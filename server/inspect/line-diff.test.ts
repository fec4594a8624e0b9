import { describe, expect, it } from "vitest";
import { diffOps, formatHunks, lineDiff, splitLines } from "./line-diff";

/** Replays an edit script; a correct diff turns the old lines into the new ones. */
function apply(a: string[], b: string[], ops: number[]): string[] {
  const out: string[] = [];
  let x = 0;
  let y = 0;
  for (const op of ops) {
    if (op === 0) {
      expect(a[x]).toBe(b[y]);
      out.push(a[x]!);
      x++;
      y++;
    } else if (op === 1) x++;
    else out.push(b[y++]!);
  }
  expect(x).toBe(a.length);
  expect(y).toBe(b.length);
  return out;
}

function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

describe("splitLines", () => {
  it("drops the empty line after a final newline and handles CRLF", () => {
    expect(splitLines("")).toEqual([]);
    expect(splitLines("a\nb\n")).toEqual(["a", "b"]);
    expect(splitLines("a\r\nb")).toEqual(["a", "b"]);
    expect(splitLines("\n")).toEqual([""]);
  });
});

describe("diffOps", () => {
  it("finds a minimal script on the classic Myers example", () => {
    const a = "ABCABBA".split("");
    const b = "CBABAC".split("");
    const { ops } = diffOps(a, b);
    expect(apply(a, b, ops)).toEqual(b);
    expect(ops.filter((o) => o !== 0).length).toBe(5);
  });

  it("handles empty sides", () => {
    expect(diffOps([], []).ops).toEqual([]);
    expect(diffOps(["a"], []).ops).toEqual([1]);
    expect(diffOps([], ["a", "b"]).ops).toEqual([2, 2]);
  });

  it("always produces a valid script, minimal as an LCS would be (random inputs)", () => {
    const r = rng(3);
    for (let round = 0; round < 200; round++) {
      const alphabet = "abcd";
      const a = Array.from({ length: Math.floor(r() * 14) }, () => alphabet[Math.floor(r() * 4)]!);
      const b = Array.from({ length: Math.floor(r() * 14) }, () => alphabet[Math.floor(r() * 4)]!);
      const { ops, approximate } = diffOps(a, b);
      expect(approximate).toBe(false);
      apply(a, b, ops);
      // LCS length by dynamic programming: the edits must be exactly len(a)+len(b)-2·LCS.
      const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
      for (let i = a.length - 1; i >= 0; i--)
        for (let j = b.length - 1; j >= 0; j--) dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
      expect(ops.filter((o) => o !== 0).length).toBe(a.length + b.length - 2 * dp[0]![0]!);
    }
  });

  it("falls back to a plain replacement past the edit-distance cap", () => {
    const a = Array.from({ length: 50 }, (_, i) => `a${i}`);
    const b = Array.from({ length: 50 }, (_, i) => `b${i}`);
    const { ops, approximate } = diffOps(["same", ...a], ["same", ...b], 10);
    expect(approximate).toBe(true);
    expect(apply(["same", ...a], ["same", ...b], ops)).toEqual(["same", ...b]);
  });
});

describe("lineDiff", () => {
  it("prints hunks like diff -u with three lines of context", () => {
    const old = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const next = [...old];
    next[9] = "line 10 changed";
    const d = lineDiff(`${old.join("\n")}\n`, `${next.join("\n")}\n`);
    expect(d.added).toBe(1);
    expect(d.removed).toBe(1);
    expect(formatHunks(d.hunks)).toBe(
      ["@@ -7,7 +7,7 @@", " line 7", " line 8", " line 9", "-line 10", "+line 10 changed", " line 11", " line 12", " line 13"].join("\n"),
    );
  });

  it("merges changes closer than twice the context and splits distant ones", () => {
    const old = Array.from({ length: 40 }, (_, i) => `l${i + 1}`);
    const near = [...old];
    near[4] = "x";
    near[10] = "y";
    expect(lineDiff(old.join("\n"), near.join("\n")).hunks).toHaveLength(1);
    const far = [...old];
    far[4] = "x";
    far[30] = "y";
    const d = lineDiff(old.join("\n"), far.join("\n"));
    expect(d.hunks).toHaveLength(2);
    expect(d.hunks[1]!.oldStart).toBe(28);
  });

  it("describes a new file as one added hunk and a deleted file as one removed hunk", () => {
    const added = lineDiff("", "a\nb\n");
    expect(formatHunks(added.hunks)).toBe("@@ -0,0 +1,2 @@\n+a\n+b");
    const removed = lineDiff("a\nb\n", "");
    expect(formatHunks(removed.hunks)).toBe("@@ -1,2 +0,0 @@\n-a\n-b");
  });

  it("returns no hunks for identical texts", () => {
    expect(lineDiff("a\nb", "a\nb")).toMatchObject({ hunks: [], added: 0, removed: 0 });
  });

  it("cuts at maxLines and says so", () => {
    const d = lineDiff("", Array.from({ length: 100 }, (_, i) => `n${i}`).join("\n"), { maxLines: 10 });
    expect(d.truncated).toBe(true);
    expect(d.hunks.reduce((s, h) => s + h.lines.length, 0)).toBe(10);
    expect(d.added).toBe(100);
  });

  it("stays fast on a long file with a few edits", () => {
    const old = Array.from({ length: 20_000 }, (_, i) => `const v${i} = ${i};`);
    const next = [...old];
    for (let i = 0; i < 50; i++) next[i * 397] = `changed ${i}`;
    const t0 = performance.now();
    const d = lineDiff(old.join("\n"), next.join("\n"));
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(d.added).toBe(50);
    expect(d.removed).toBe(50);
  });
});
