/**
 * Reading a checkpoint's files without running it: a container created (never started) from the image, whose
 * filesystem the archive API serves. Labelled so init() removes one left by a crash.
 */
import { posix } from "node:path";
import type Docker from "dockerode";
import { SandboxError } from "../errors";
import { statusOf } from "./docker-client";
import { LABEL } from "./labels";
import { readTar } from "./tar-archive";

const MAX_SYMLINK_HOPS = 16;

export async function withReaderContainer<T>(
  docker: Docker,
  scope: string,
  imageId: string,
  use: (container: Docker.Container) => Promise<T>,
): Promise<T> {
  const container = await docker.createContainer({
      Image: imageId,
      Cmd: ["/bin/true"],
      Entrypoint: [],
      NetworkDisabled: true,
      Labels: { [LABEL.workbench]: "1", [LABEL.scope]: scope, [LABEL.role]: "reader" },
      HostConfig: { NetworkMode: "none" },
    });
  try {
    return await use(container);
  } finally {
    await container.remove({ force: true, v: true }).catch(() => undefined);
  }
}

/** A regular file's bytes through the archive API, following symlinks; null when the path does not exist. */
export async function readFileFromArchive(container: Docker.Container, path: string): Promise<Buffer | null> {
  let current = posix.resolve("/", path);
  for (let hop = 0; hop <= MAX_SYMLINK_HOPS; hop++) {
    let archive: NodeJS.ReadableStream;
    try {
      archive = await container.getArchive({ path: current });
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
    let result: { kind: "file"; data: Buffer } | { kind: "symlink"; target: string } | { kind: "other"; type: string } | undefined;
    const chunks: Buffer[] = [];
    await readTar(archive as AsyncIterable<Buffer>, (header) => {
      if (header.type === "file") {
        return {
          data: (chunk) => chunks.push(Buffer.from(chunk)),
          end: () => (result = { kind: "file", data: Buffer.concat(chunks) }),
        };
      }
      result = header.type === "symlink" ? { kind: "symlink", target: header.linkname } : { kind: "other", type: header.type };
      return "stop";
    });
    (archive as unknown as { destroy?: () => void }).destroy?.();
    if (result === undefined) return null;
    if (result.kind === "file") return result.data;
    if (result.kind === "other") throw new SandboxError(`${current} is not a regular file (${result.type})`);
    current = posix.resolve(posix.dirname(current), result.target);
  }
  throw new SandboxError(`${path}: too many levels of symbolic links`);
}
