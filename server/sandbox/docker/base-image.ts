/** Turning a SandboxBase into an image id: an image ref as is, a rootfs tarball or directory imported once. */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import type Docker from "dockerode";
import { CheckpointNotFoundError, DriverUnavailableError, SandboxError } from "../errors";
import type { SandboxBase } from "../types";
import { statusOf } from "./docker-client";
import { imageInspect, importProgress, type ImageInspect } from "./docker-schemas";
import { LABEL, ROOTFS_REPO } from "./labels";

export async function inspectImage(docker: Docker, ref: string): Promise<ImageInspect | null> {
  try {
    return imageInspect.parse(await docker.getImage(ref).inspect());
  } catch (err) {
    if (statusOf(err) === 404) return null;
    throw err;
  }
}

/** Reads the JSON progress stream of an image import and returns the new image's id. */
export async function importedImageId(progress: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of progress as AsyncIterable<Buffer | string>) text += chunk.toString();
  let id: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const message = importProgress.parse(JSON.parse(line));
    if (message.error) throw new SandboxError(`image import failed: ${message.error}`);
    if (message.status?.startsWith("sha256:")) id = message.status;
  }
  if (!id) throw new SandboxError("image import did not report an image id");
  return id;
}

/** An imported image has no config: PATH must be set or exec finds nothing. */
export const IMPORT_PATH = "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

const inFlight = new Map<string, Promise<string>>();

async function importRootfs(docker: Docker, path: string): Promise<string> {
  const real = await realpath(path).catch(() => {
    throw new SandboxError(`rootfs ${path} does not exist (build one with scripts/ensure-rootfs.sh)`);
  });
  const info = await stat(real);
  // Path, size and mtime identify the tarball cheaply; rebuilding it gives a new key and so a new import.
  const key = createHash("sha256").update(`${real}\0${info.size}\0${info.mtimeMs}`).digest("hex").slice(0, 16);
  const tag = `${ROOTFS_REPO}:${key}`;
  const existing = await inspectImage(docker, tag);
  if (existing) return existing.Id;

  let source: Readable;
  if (info.isDirectory()) {
    const tar = spawn("tar", ["--numeric-owner", "--xattrs", "-C", real, "-c", "."], { stdio: ["ignore", "pipe", "inherit"] });
    source = tar.stdout;
  } else {
    source = createReadStream(real);
  }
  const progress = await docker.importImage(source, {
    repo: ROOTFS_REPO,
    tag: key,
    changes: [IMPORT_PATH, `LABEL "${LABEL.workbench}"="1" "${LABEL.rootfsKey}"="${key}"`],
  });
  return importedImageId(progress);
}

export async function resolveBase(docker: Docker, base: SandboxBase): Promise<ImageInspect> {
  switch (base.kind) {
    case "host":
      throw new DriverUnavailableError(
        'the docker driver cannot use the host\'s root as a base; use {kind:"image"} or {kind:"rootfs"} ' +
          "(scripts/ensure-rootfs.sh builds one), or the local driver for the host",
      );
    case "image": {
      const image = await inspectImage(docker, base.ref);
      if (!image) {
        throw new CheckpointNotFoundError(
          base.ref,
          "no such image on the engine (no registry to pull from; scripts/ensure-rootfs.sh makes sprout-base:bookworm)",
        );
      }
      return image;
    }
    case "rootfs": {
      let pending = inFlight.get(base.path);
      if (!pending) {
        pending = importRootfs(docker, base.path).finally(() => inFlight.delete(base.path));
        inFlight.set(base.path, pending);
      }
      const id = await pending;
      const image = await inspectImage(docker, id);
      if (!image) throw new SandboxError(`imported rootfs ${base.path} vanished (image ${id})`);
      return image;
    }
  }
}
