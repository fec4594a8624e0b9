/**
 * A checkpoint is an image made from the sandbox's container while it runs:
 * - usually `docker commit` with pause=false: the container's processes keep running and are not frozen, so a
 *   file being written during the commit may be captured half-written (pausing would freeze them for the
 *   commit's duration, ~0.3 s, on every turn; checkpoints are taken between turns when nothing should write).
 *   A commit stores the container's whole writable layer, i.e. everything changed since the container started
 *   from its image, so repeated checkpoints of one long-lived sandbox each store the cumulative change, and their
 *   Docker parent is the container's image, not the previous checkpoint: the lineage lives in labels.
 * - a squash (export + import into one flat layer) when the commit would exceed `squashAtLayers`, because overlay2
 *   cannot mount more than ~125 layers; the squashed image's lineage label still points at the parent checkpoint.
 */
import { randomBytes } from "node:crypto";
import type Docker from "dockerode";
import { importedImageId, inspectImage, IMPORT_PATH } from "./base-image";
import { commitResult, imageHistory } from "./docker-schemas";
import { CHECKPOINT_REPO, LABEL } from "./labels";

export interface CommitInput {
  docker: Docker;
  container: Docker.Container;
  parentRef: string | null;
  baseImageId: string;
  scope: string;
  /** Layers of the container's image; the commit adds one. */
  imageLayers: number;
  squashAtLayers: number;
}

export interface CommitOutput {
  ref: string;
  bytesAdded: number;
  squashed: boolean;
}

function checkpointLabels(input: CommitInput): string {
  return `LABEL "${LABEL.workbench}"="1" "${LABEL.scope}"="${input.scope}" "${LABEL.checkpoint}"="1" "${LABEL.parent}"="${input.parentRef ?? ""}" "${LABEL.base}"="${input.baseImageId}"`;
}

/** Dockerfile ENV lines for the container's environment, so a squashed image keeps what its commit would have. */
async function configChanges(container: Docker.Container): Promise<string[]> {
  const raw = (await container.inspect()) as { Config?: { Env?: unknown; WorkingDir?: unknown } };
  const env = Array.isArray(raw.Config?.Env) ? raw.Config.Env.filter((e): e is string => typeof e === "string") : [];
  const lines = env
    .filter((e) => !e.includes("\n") && e.includes("="))
    .map((e) => {
      const eq = e.indexOf("=");
      return `ENV ${e.slice(0, eq)}=${JSON.stringify(e.slice(eq + 1))}`;
    });
  if (!env.some((e) => e.startsWith("PATH="))) lines.unshift(IMPORT_PATH);
  const workdir = raw.Config?.WorkingDir;
  if (typeof workdir === "string" && workdir) lines.push(`WORKDIR ${workdir}`);
  return lines;
}

async function squash(input: CommitInput, tag: string): Promise<CommitOutput> {
  const changes = [...(await configChanges(input.container)), checkpointLabels(input)];
  const exported = await input.container.export();
  const id = await importedImageId(await input.docker.importImage(exported, { repo: CHECKPOINT_REPO, tag, changes }));
  const image = await inspectImage(input.docker, id);
  return { ref: id, bytesAdded: image?.Size ?? 0, squashed: true };
}

export async function commitCheckpoint(input: CommitInput): Promise<CommitOutput> {
  const tag = randomBytes(8).toString("hex");
  if (input.imageLayers + 1 > input.squashAtLayers) return squash(input, tag);
  // A tag keeps checkpoints from looking dangling to `docker image prune`.
  const committed = commitResult.parse(
    await input.container.commit({ repo: CHECKPOINT_REPO, tag, pause: false, changes: [checkpointLabels(input)] }),
  );
  const history = imageHistory.parse(await input.docker.getImage(committed.Id).history());
  return { ref: committed.Id, bytesAdded: history[0]?.Size ?? 0, squashed: false };
}
