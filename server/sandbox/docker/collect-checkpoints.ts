/**
 * Listing and collecting checkpoint images. "Needed by a kept checkpoint" means its storage depends on it: the
 * Docker parent chain (layers), not the lineage labels, since a checkpoint's lineage parent may share no layer
 * with it (see commit-checkpoint.ts). Images still used by a container are left alone (the engine refuses, 409).
 */
import type Docker from "dockerode";
import type { CollectResult, StoredCheckpoint } from "../types";
import { statusOf } from "./docker-client";
import { imageList, type ImageSummary } from "./docker-schemas";
import { LABEL } from "./labels";

interface CheckpointImage {
  image: ImageSummary;
  parentRef: string | null;
  bytes: number;
  depth: number;
}

export async function listCheckpointImages(docker: Docker, scope: string): Promise<CheckpointImage[]> {
  // All images, not only checkpoints: a layer's own size is the image size minus its Docker parent's.
  const all = imageList.parse(await docker.listImages({ all: true }));
  const byId = new Map(all.map((i) => [i.Id, i]));
  const depthOf = (image: ImageSummary): number => {
    let depth = 0;
    for (let p = image.ParentId; p !== null; p = byId.get(p)?.ParentId ?? null) depth++;
    return depth;
  };
  return all
    .filter((i) => i.Labels[LABEL.checkpoint] === "1" && i.Labels[LABEL.scope] === scope)
    .map((image) => {
      const parentSize = image.ParentId ? (byId.get(image.ParentId)?.Size ?? 0) : 0;
      return {
        image,
        parentRef: image.Labels[LABEL.parent] || null,
        bytes: Math.max(0, image.Size - parentSize),
        depth: depthOf(image),
      };
    });
}

export async function listCheckpoints(docker: Docker, scope: string): Promise<StoredCheckpoint[]> {
  return (await listCheckpointImages(docker, scope)).map((c) => ({
    ref: c.image.Id,
    parentRef: c.parentRef,
    bytes: c.bytes,
    createdAt: new Date(c.image.Created * 1000),
  }));
}

export async function collectCheckpoints(docker: Docker, scope: string, keep: readonly string[]): Promise<CollectResult> {
  const checkpoints = await listCheckpointImages(docker, scope);
  const parentOf = new Map(
    imageList.parse(await docker.listImages({ all: true })).map((i) => [i.Id, i.ParentId] as const),
  );
  const needed = new Set<string>();
  for (const ref of keep) {
    for (let id: string | null = ref; id !== null && !needed.has(id); id = parentOf.get(id) ?? null) needed.add(id);
  }
  // Children first: the engine will not remove an image that still has children.
  const doomed = checkpoints.filter((c) => !needed.has(c.image.Id)).sort((a, b) => b.depth - a.depth);
  const result: CollectResult = { removed: [], bytesFreed: 0 };
  for (const c of doomed) {
    try {
      await docker.getImage(c.image.Id).remove({ noprune: true });
      result.removed.push(c.image.Id);
      result.bytesFreed += c.bytes;
    } catch (err) {
      // 409: used by a live container or parent of an image outside this scope; 404: removed meanwhile.
      if (statusOf(err) !== 409 && statusOf(err) !== 404) throw err;
    }
  }
  return result;
}
