import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, realpath, rename, stat } from "node:fs/promises";
import path from "node:path";
import { SandboxError } from "../errors";
import type { SandboxBase } from "../types";
import type { HelperClient } from "./helper-client";
import type { BaseInfo } from "./layer-meta";
import { Op } from "./protocol";

/** Paths of the host that a `host` base hides by default: homes, scratch space, mounts, work trees. */
export const DEFAULT_HIDDEN_PATHS = ["/root", "/home", "/work", "/tmp", "/var/tmp", "/mnt", "/media"];

export interface BaseResolverOptions {
  dataDir: string;
  helper: HelperClient;
  /** Added to DEFAULT_HIDDEN_PATHS (plus the data dir and the current work tree). */
  hiddenPaths: readonly string[];
  /** Local bases registered by name for `{ kind: "image" }`: a rootfs dir or tarball. */
  images: Readonly<Record<string, string>>;
}

const hash = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);

/** Overlay option syntax reserves these; refuse them rather than escape them for two kernel APIs. */
function checkLowerPath(p: string): void {
  if (/[:,\\\n]/.test(p)) throw new SandboxError(`rootfs path ${p} contains ':', ',', '\\' or a newline`);
}

/** Turns a SandboxBase into overlay lower dirs, preparing masks and unpacked tarballs once. */
export class BaseResolver {
  private readonly inflight = new Map<string, Promise<BaseInfo>>();
  /** Per helper (each has its own mount namespace, where the masks live): base id -> mask made. */
  private readonly masks = new Map<HelperClient, Map<string, Promise<void>>>();

  constructor(private readonly o: BaseResolverOptions) {}

  resolve(base: SandboxBase): Promise<BaseInfo> {
    const key = JSON.stringify(base);
    let p = this.inflight.get(key);
    if (!p) {
      p = this.doResolve(base);
      this.inflight.set(key, p);
      p.catch(() => this.inflight.delete(key));
    }
    return p;
  }

  private async doResolve(base: SandboxBase): Promise<BaseInfo> {
    switch (base.kind) {
      case "host":
        return this.host(base.hiddenPaths ?? []);
      case "rootfs":
        return this.rootfs(base.path);
      case "image": {
        const registered = this.o.images[base.ref];
        if (registered) return this.rootfs(registered);
        const local = path.join(this.o.dataDir, "images", base.ref);
        if (/^[\w.-]+$/.test(base.ref) && existsSync(local)) return this.rootfs(local);
        throw new SandboxError(`unknown local image ${base.ref}: register it in the driver's images option`);
      }
      default:
        return assertUnreachable(base);
    }
  }

  private async host(extra: readonly string[]): Promise<BaseInfo> {
    const wanted = [...DEFAULT_HIDDEN_PATHS, ...this.o.hiddenPaths, ...extra, this.o.dataDir, process.cwd()]
      .map((p) => path.posix.resolve("/", p))
      .filter((p) => p !== "/");
    // A hidden ancestor already hides everything below it.
    const sorted = [...new Set(wanted)].sort();
    const hidden = sorted.filter((p) => !sorted.some((q) => q !== p && p.startsWith(`${q}/`)));
    const id = `host-${hash(JSON.stringify(hidden))}`;
    const info: BaseInfo = { id, lowers: [`masks/${id}/root`], hidden };
    await this.ensure(info);
    return info;
  }

  /** Makes sure a base recorded in a checkpoint can be mounted by a helper (host masks); by default the first. */
  ensure(info: BaseInfo, helper: HelperClient = this.o.helper): Promise<void> {
    if (!info.id.startsWith("host-")) return Promise.resolve();
    let made = this.masks.get(helper);
    if (!made) this.masks.set(helper, (made = new Map<string, Promise<void>>()));
    let p = made.get(info.id);
    if (!p) {
      const tmp = `masks/.tmp-${info.id}-${randomBytes(4).toString("hex")}`;
      p = helper.call(Op.mkmask, [tmp, `masks/${info.id}`, "/", ...(info.hidden ?? [])]).then(() => undefined);
      made.set(info.id, p);
      p.catch(() => made.delete(info.id));
    }
    return p;
  }

  private async rootfs(p: string): Promise<BaseInfo> {
    let real: string;
    try {
      real = await realpath(p);
    } catch {
      throw new SandboxError(`rootfs ${p} does not exist`);
    }
    const st = await stat(real);
    if (st.isDirectory()) {
      checkLowerPath(real);
      return { id: `rootfs-${hash(real)}`, lowers: [real] };
    }
    // A tarball is unpacked once; the key includes size and mtime so a replaced file is unpacked again.
    const id = `tar-${hash(`${real}:${st.size}:${st.mtimeMs}`)}`;
    const dir = `bases/${id}`;
    if (!existsSync(path.join(this.o.dataDir, dir))) {
      const tmp = path.join(this.o.dataDir, `bases/.tmp-${id}-${randomBytes(4).toString("hex")}`);
      await mkdir(path.join(tmp, "d"), { recursive: true });
      await untar(real, path.join(tmp, "d"));
      await rename(tmp, path.join(this.o.dataDir, dir));
    }
    return { id, lowers: [`${dir}/d`] };
  }
}

function untar(file: string, into: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn("tar", ["--numeric-owner", "--xattrs", "--xattrs-include=*", "-xpf", file, "-C", into], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    p.stderr.on("data", (c: Buffer) => (err = (err + c.toString()).slice(-2000)));
    p.on("error", (e) => reject(new SandboxError(`tar: ${e.message}`)));
    p.on("exit", (code) => (code === 0 ? resolve() : reject(new SandboxError(`cannot unpack ${file}: ${err.trim()}`))));
  });
}

function assertUnreachable(x: never): never {
  throw new SandboxError(`unknown base ${JSON.stringify(x)}`);
}
