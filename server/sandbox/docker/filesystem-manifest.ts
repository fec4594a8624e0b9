/**
 * changes(ref, baseRef) compares whole-filesystem manifests (type, mode, owner, content hash, link target per path)
 * of two images, each read once through the archive API of a reader container and cached: images are immutable.
 * Why not Docker's own diff: `docker diff` only compares a container with its image, and a checkpoint's lineage parent
 * is often not its Docker parent (repeated commits of one container, squashes). The cost is reading the whole
 * filesystem once per image (~1-2 s for the bookworm base); mtimes are ignored, so a touched but unchanged file or a
 * directory whose entries changed is not reported as modified.
 */
import { createHash, type Hash } from "node:crypto";
import type Docker from "dockerode";
import type { FileChange } from "../types";
import { readTar } from "./tar-archive";

export interface ManifestEntry {
  type: FileChange["type"];
  mode: number;
  uid: number;
  gid: number;
  size: number;
  /** Content hash for files, link target for symlinks, "" otherwise. */
  digest: string;
}

export type Manifest = Map<string, ManifestEntry>;

/** Paths the engine manages per container (bind mounts, pseudo filesystems): never part of a checkpoint's state. */
const ENGINE_PATHS = new Set(["etc/hosts", "etc/hostname", "etc/resolv.conf", ".dockerenv"]);
const ENGINE_TREES = ["proc/", "sys/", "dev/"];

function ignored(path: string): boolean {
  return path === "" || ENGINE_PATHS.has(path) || ENGINE_TREES.some((t) => path.startsWith(t));
}

export async function buildManifest(container: Docker.Container): Promise<Manifest> {
  const archive = await container.getArchive({ path: "/" });
  const manifest: Manifest = new Map();
  await readTar(archive as AsyncIterable<Buffer>, (h) => {
    // The archive of "/" names entries relative to the root, possibly under a "./" or "/" that readTar strips.
    const path = h.path;
    if (ignored(path)) return undefined;
    const base = { mode: h.mode, uid: h.uid, gid: h.gid };
    switch (h.type) {
      case "file": {
        const hash: Hash = createHash("sha256");
        return {
          data: (chunk) => hash.update(chunk),
          end: () => manifest.set(path, { ...base, type: "file", size: h.size, digest: hash.digest("hex") }),
        };
      }
      case "hardlink": {
        const target = manifest.get(h.linkname.replace(/^(\.\/|\/)+/, ""));
        manifest.set(path, { ...base, type: "file", size: target?.size ?? 0, digest: target?.digest ?? `link:${h.linkname}` });
        return undefined;
      }
      case "symlink":
        manifest.set(path, { ...base, type: "symlink", size: Buffer.byteLength(h.linkname), digest: h.linkname });
        return undefined;
      case "dir":
        manifest.set(path, { ...base, type: "dir", size: 0, digest: "" });
        return undefined;
      case "other":
        manifest.set(path, { ...base, type: "other", size: 0, digest: "" });
        return undefined;
    }
  });
  return manifest;
}

function same(a: ManifestEntry, b: ManifestEntry): boolean {
  return a.type === b.type && a.mode === b.mode && a.uid === b.uid && a.gid === b.gid && a.digest === b.digest;
}

/** What turns `base` into `next`, sorted by path. */
export function diffManifests(next: Manifest, base: Manifest): FileChange[] {
  const out: FileChange[] = [];
  for (const [path, entry] of next) {
    const before = base.get(path);
    if (!before) out.push({ path: `/${path}`, kind: "added", type: entry.type, size: entry.size });
    else if (!same(entry, before)) out.push({ path: `/${path}`, kind: "modified", type: entry.type, size: entry.size });
  }
  for (const [path, entry] of base) {
    if (!next.has(path)) out.push({ path: `/${path}`, kind: "deleted", type: entry.type, size: entry.size });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
