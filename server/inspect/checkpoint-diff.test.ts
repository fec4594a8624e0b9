import { describe, expect, it } from "vitest";
import type { FileChange, SandboxDriver } from "../sandbox/types";
import { diffCheckpoints, type DiffSide } from "./checkpoint-diff";

/** A driver whose checkpoints are plain maps of path → content. */
function fakeDriver(checkpoints: Record<string, Record<string, string | Buffer>>): SandboxDriver {
  const read = (ref: string, path: string) => {
    const v = checkpoints[ref]?.[path];
    return v === undefined ? null : Buffer.from(v);
  };
  return {
    name: "local",
    changes: (ref: string, baseRef: string | null): Promise<FileChange[]> => {
      const a = checkpoints[ref] ?? {};
      const b = baseRef ? (checkpoints[baseRef] ?? {}) : {};
      const out: FileChange[] = [];
      for (const p of new Set([...Object.keys(a), ...Object.keys(b)])) {
        const x = a[p];
        const y = b[p];
        if (x !== undefined && y === undefined) out.push({ path: p, kind: "added", type: "file", size: x.length });
        else if (x === undefined && y !== undefined) out.push({ path: p, kind: "deleted", type: "file", size: y.length });
        else if (x !== undefined && y !== undefined && Buffer.compare(Buffer.from(x), Buffer.from(y)) !== 0) out.push({ path: p, kind: "modified", type: "file", size: x.length });
      }
      return Promise.resolve(out);
    },
    readCheckpointFile: (ref: string, path: string) => Promise.resolve(read(ref, path)),
  } as unknown as SandboxDriver;
}

const side = (ref: string, state = "live", backend = "local"): DiffSide => ({ checkpointId: `c-${ref}`, ref, state, backend });

describe("diffCheckpoints", () => {
  const driver = fakeDriver({
    base: { "/w/a.py": "x = 1\ny = 2\n", "/w/gone.txt": "bye\n", "/w/bin": Buffer.from([1, 0, 2]) },
    next: { "/w/a.py": "x = 1\ny = 3\n", "/w/new.txt": "hello\n", "/w/bin": Buffer.from([1, 0, 3]) },
  });

  it("diffs added, modified and deleted text files and summarises binaries", async () => {
    const d = await diffCheckpoints(driver, side("next"), side("base"));
    expect(d.status).toBe("ok");
    const byPath = Object.fromEntries(d.files.map((f) => [f.path, f]));
    expect(byPath["/w/a.py"]).toMatchObject({ kind: "modified", view: "diff", added: 1, removed: 1 });
    expect(byPath["/w/new.txt"]).toMatchObject({ kind: "added", view: "diff", added: 1, removed: 0 });
    expect(byPath["/w/gone.txt"]).toMatchObject({ kind: "deleted", view: "diff", added: 0, removed: 1 });
    expect(byPath["/w/bin"]).toMatchObject({ view: "binary", hunks: [] });
  });

  it("summarises files over the size cap without reading them into a diff", async () => {
    const d = await diffCheckpoints(driver, side("next"), side("base"), { maxDiffedFiles: 10, maxListedFiles: 10, maxFileBytes: 4, maxLinesPerFile: 100 });
    expect(d.files.find((f) => f.path === "/w/a.py")?.view).toBe("too-large");
  });

  it("explains missing, collected and foreign checkpoints instead of failing", async () => {
    expect((await diffCheckpoints(driver, null, side("base"))).status).toBe("no-checkpoint");
    expect((await diffCheckpoints(driver, side("next", "collected"), side("base"))).status).toBe("collected");
    const foreign = await diffCheckpoints(driver, side("next", "live", "docker"), side("base"));
    expect(foreign).toMatchObject({ status: "unavailable" });
  });
});
