/**
 * The docker driver: a sandbox is a container without network, with memory and process limits, idling while
 * commands run through exec; a checkpoint is an image committed from it (see commit-checkpoint.ts) and restoring
 * is starting a container from that image.
 */
import { randomBytes } from "node:crypto";
import { CheckpointNotFoundError } from "../errors";
import type { CreateSandboxOptions, FileChange, SandboxDriver, SandboxLimits } from "../types";
import { inspectImage, resolveBase } from "./base-image";
import { collectCheckpoints, listCheckpoints } from "./collect-checkpoints";
import { connectDocker, engineCall, statusOf, unavailable } from "./docker-client";
import { DockerSandbox } from "./docker-sandbox";
import { containerList, type ImageInspect } from "./docker-schemas";
import { buildManifest, diffManifests, type Manifest } from "./filesystem-manifest";
import { LABEL } from "./labels";
import { readFileFromArchive, withReaderContainer } from "./reader-container";

/** Options of the docker driver. */
export interface DockerDriverOptions {
  /** Engine socket; default DOCKER_HOST, then /var/run/docker.sock. */
  socketPath?: string;
  /** Label value separating this driver's containers and checkpoints from others' on the same engine (default "default"). */
  scope?: string;
  /** Base of a sandbox created without `base` or `fromCheckpoint` (default the image scripts/ensure-rootfs.sh makes). */
  defaultBase?: CreateSandboxOptions["base"];
  /** Limits of a sandbox that does not set them. */
  defaultLimits?: Partial<SandboxLimits>;
  /** Flatten a checkpoint whose image would have more layers than this (overlay2 mounts at most ~125). */
  squashAtLayers?: number;
  /** Filesystem manifests kept in memory for changes() (one per image, ~1-3 MB each). */
  manifestCacheEntries?: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  memoryBytes: 2 * 1024 ** 3,
  pids: 1024,
  cpuSeconds: 0,
  network: false,
};

const DEFAULT_BASE = { kind: "image", ref: "sprout-base:bookworm" } as const;

// PID 1 must reap orphans (a bare `sleep infinity` would let zombies pile up against the pids limit); dash's
// `wait` reaps every exited child. TERM ends it at once instead of after Docker's grace period.
const IDLE = ["/bin/sh", "-c", 'trap "exit 0" TERM; while :; do sleep 3600 & wait $!; done'];

export function createDockerDriver(options: DockerDriverOptions = {}): SandboxDriver {
  const { docker, endpoint } = connectDocker(options.socketPath);
  const scope = options.scope ?? "default";
  const squashAtLayers = options.squashAtLayers ?? 100;
  const manifestCacheEntries = options.manifestCacheEntries ?? 8;
  const live = new Set<DockerSandbox>();
  const manifests = new Map<string, Promise<Manifest>>();

  const call = <T>(fn: () => Promise<T>): Promise<T> => engineCall(endpoint, fn);

  async function checkpointImage(ref: string): Promise<ImageInspect> {
    const image = await inspectImage(docker, ref);
    if (!image || image.Config?.Labels[LABEL.checkpoint] !== "1") throw new CheckpointNotFoundError(ref);
    return image;
  }

  function manifestOf(imageId: string): Promise<Manifest> {
    let pending = manifests.get(imageId);
    if (pending) {
      // Re-insert: Map order doubles as least-recently-used order.
      manifests.delete(imageId);
    } else {
      pending = withReaderContainer(docker, scope, imageId, buildManifest);
      pending.catch(() => manifests.delete(imageId));
    }
    manifests.set(imageId, pending);
    for (const oldest of manifests.keys()) {
      if (manifests.size <= manifestCacheEntries) break;
      manifests.delete(oldest);
    }
    return pending;
  }

  return {
    name: "docker",

    async init() {
      try {
        await docker.ping();
      } catch (err) {
        throw unavailable(endpoint, err);
      }
      const leftovers = containerList.parse(
        await docker.listContainers({ all: true, filters: { label: [`${LABEL.workbench}=1`, `${LABEL.scope}=${scope}`] } }),
      );
      const ours = new Set([...live].map((s) => s.containerId));
      await Promise.all(
        leftovers
          .filter((c) => !ours.has(c.Id))
          .map((c) =>
            docker
              .getContainer(c.Id)
              .remove({ force: true, v: true })
              .catch((err: unknown) => {
                if (statusOf(err) !== 404 && statusOf(err) !== 409) throw err;
              }),
          ),
      );
    },

    async create(opts) {
      return call(async () => {
        let image: ImageInspect;
        let baseImageId: string;
        let restoredFrom: string | null = null;
        if (opts.fromCheckpoint !== undefined) {
          image = await checkpointImage(opts.fromCheckpoint);
          baseImageId = image.Config?.Labels[LABEL.base] || image.Id;
          restoredFrom = image.Id;
        } else {
          image = await resolveBase(docker, opts.base ?? options.defaultBase ?? DEFAULT_BASE);
          baseImageId = image.Id;
        }
        const limits: SandboxLimits = { ...DEFAULT_LIMITS, ...options.defaultLimits, ...opts.limits };
        const workdir = opts.workdir ?? (image.Config?.WorkingDir || "/");
        const env = opts.env ?? {};
        const id = randomBytes(6).toString("hex");
        const container = await docker.createContainer({
            name: `sprout-${scope}-${id}`,
            Image: image.Id,
            Entrypoint: [],
            Cmd: IDLE,
            WorkingDir: workdir,
            Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
            Hostname: "sandbox",
            NetworkDisabled: !limits.network,
            Labels: {
              ...opts.labels,
              [LABEL.workbench]: "1",
              [LABEL.scope]: scope,
              [LABEL.sandbox]: id,
              [LABEL.role]: "sandbox",
            },
            StopTimeout: 1,
            HostConfig: {
              NetworkMode: limits.network ? "bridge" : "none",
              Memory: limits.memoryBytes,
              // Equal to Memory: no swap, so the limit is a limit.
              MemorySwap: limits.memoryBytes,
              PidsLimit: limits.pids,
              // RLIMIT_CPU applies per process: a bound on runaway computation, not a sandbox-wide budget.
              Ulimits: limits.cpuSeconds > 0 ? [{ Name: "cpu", Soft: limits.cpuSeconds, Hard: limits.cpuSeconds }] : [],
              SecurityOpt: ["no-new-privileges"],
            },
          });
        try {
          await container.start();
        } catch (err) {
          await container.remove({ force: true, v: true }).catch(() => undefined);
          throw err;
        }
        const sandbox = new DockerSandbox({
          id,
          docker,
          endpoint,
          container,
          imageId: image.Id,
          imageLayers: image.RootFS.Layers.length,
          baseImageId,
          lastCheckpointRef: restoredFrom,
          workdir,
          env,
          squashAtLayers,
          scope,
          onDestroyed: (s) => live.delete(s),
        });
        live.add(sandbox);
        return sandbox;
      });
    },

    listCheckpoints() {
      return call(() => listCheckpoints(docker, scope));
    },

    collect(keep) {
      return call(async () => {
        const result = await collectCheckpoints(docker, scope, keep);
        for (const ref of result.removed) manifests.delete(ref);
        return result;
      });
    },

    changes(ref, baseRef) {
      return call(async (): Promise<FileChange[]> => {
        const image = await checkpointImage(ref);
        const baseId = baseRef ?? image.Config?.Labels[LABEL.base];
        const base = baseId ? await inspectImage(docker, baseId) : null;
        if (!base) throw new CheckpointNotFoundError(baseRef ?? `base of ${ref}`);
        const [next, before] = await Promise.all([manifestOf(image.Id), manifestOf(base.Id)]);
        return diffManifests(next, before);
      });
    },

    readCheckpointFile(ref, path) {
      return call(async () => {
        const image = await checkpointImage(ref);
        return withReaderContainer(docker, scope, image.Id, (c) => readFileFromArchive(c, path));
      });
    },

    async close() {
      await Promise.all([...live].map((s) => s.destroy()));
    },
  };
}
