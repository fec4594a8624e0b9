import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { CheckpointNotFoundError, SandboxError } from "../errors";
import type { StoredCheckpoint } from "../types";
import type { HelperClient } from "./helper-client";
import { LAYER_REF, layerMetaSchema, squashMetaSchema, type BaseInfo, type LayerMeta } from "./layer-meta";
import { SQUASH_FANOUT, squashLevelsEndingAt, stackSegments, type StackSource } from "./layer-stack";
import { Op } from "./protocol";

/** Above this many lower dirs a mount waits for pending squashes (the kernel allows 500). */
const MAX_STACK = 120;

export const layerDir = (id: string) => `layers/${id}/d`;
const squashName = (top: string, level: number) => `squashes/${top}-L${level}`;

/**
 * The checkpoint layers on disk and their in-memory index. A layer is `layers/<ref>/{d,meta.json}`,
 * `d` being the frozen overlay upper dir: the diff against the parent layer.
 */
export class LayerStore {
  private readonly layers = new Map<string, LayerMeta>();
  private readonly squashes = new Map<string, string>();
  private squashChain: Promise<void> = Promise.resolve();
  private squashesPending = 0;
  private closed = false;

  constructor(
    private readonly dataDir: string,
    private readonly helper: HelperClient,
  ) {}

  /** Indexes finished layers and squashes and removes half-written ones (`.tmp-*`). */
  async load(): Promise<void> {
    this.layers.clear();
    this.squashes.clear();
    for (const entry of await readdir(path.join(this.dataDir, "layers"))) {
      if (entry.startsWith(".tmp-")) {
        await rm(path.join(this.dataDir, "layers", entry), { recursive: true, force: true });
        continue;
      }
      if (!LAYER_REF.test(entry)) continue;
      const meta = await readJson(path.join(this.dataDir, "layers", entry, "meta.json"), (v) => layerMetaSchema.safeParse(v));
      if (meta && meta.id === entry) this.layers.set(entry, meta);
    }
    for (const entry of await readdir(path.join(this.dataDir, "squashes"))) {
      const full = path.join(this.dataDir, "squashes", entry);
      const meta = entry.startsWith(".tmp-") ? null : await readJson(path.join(full, "meta.json"), (v) => squashMetaSchema.safeParse(v));
      // A squash made with another fanout covers another block of layers: not usable (a deep chain gets new ones on demand).
      if (!meta || `${meta.top}-L${meta.level}` !== entry || meta.count !== SQUASH_FANOUT ** meta.level) {
        await rm(full, { recursive: true, force: true });
        continue;
      }
      this.squashes.set(`${meta.top}:${meta.level}`, `squashes/${entry}/d`);
    }
  }

  newRef(): string {
    return randomBytes(8).toString("hex");
  }

  /** The layer's metadata; CheckpointNotFoundError for malformed, unknown or collected refs. */
  get(ref: string): LayerMeta {
    if (!LAYER_REF.test(ref)) throw new CheckpointNotFoundError(ref, "malformed ref");
    const meta = this.layers.get(ref);
    if (!meta) throw new CheckpointNotFoundError(ref);
    return meta;
  }

  has(ref: string): boolean {
    return this.layers.has(ref);
  }

  private source(): StackSource {
    return {
      layer: (id) => this.layers.get(id),
      squash: (top, level) => this.squashes.get(`${top}:${level}`),
      layerDir,
    };
  }

  /** Overlay lower dirs (newest first) that reproduce checkpoint `ref`, base included. */
  async lowersFor(ref: string, verify = false): Promise<string[]> {
    const meta = this.get(ref);
    let dirs = this.stackOf(meta);
    if (dirs.length > MAX_STACK) {
      this.scheduleMissingSquashes(meta);
      await this.idle();
      dirs = this.stackOf(meta);
      if (dirs.length > MAX_STACK) throw new SandboxError(`layer stack of ${ref} too deep (${dirs.length})`);
    }
    const lowers = [...dirs, ...meta.base.lowers];
    if (verify) {
      for (const d of lowers) {
        // masks/ is the helper's private tmpfs: not visible from here.
        if (d.startsWith("masks/")) continue;
        if (!existsSync(path.resolve(this.dataDir, d))) throw new CheckpointNotFoundError(ref, `stored data missing: ${d}`);
      }
    }
    return lowers;
  }

  private stackOf(meta: LayerMeta): string[] {
    try {
      return stackSegments(this.source(), meta.id, meta.depth);
    } catch {
      throw new CheckpointNotFoundError(meta.id, "an ancestor layer is missing");
    }
  }

  /** Records a layer the helper just stored and schedules the squashes its depth completes. */
  add(meta: LayerMeta): void {
    this.layers.set(meta.id, meta);
    for (const level of squashLevelsEndingAt(meta.depth)) this.scheduleSquash(meta.id, level);
  }

  baseOf(ref: string): BaseInfo {
    return this.get(ref).base;
  }

  /** Ids from `ref` up to the root, newest first. */
  chain(ref: string): string[] {
    const out: string[] = [];
    let cur: LayerMeta | undefined = this.get(ref);
    while (cur) {
      out.push(cur.id);
      cur = cur.parent ? this.layers.get(cur.parent) : undefined;
    }
    return out;
  }

  list(): StoredCheckpoint[] {
    return [...this.layers.values()].map((m) => ({
      ref: m.id,
      parentRef: m.parent,
      bytes: m.bytes,
      createdAt: new Date(m.createdAt),
    }));
  }

  /** Squashes the chain below `meta` lacks (it predates them, or they were made for another fanout), oldest first. */
  private scheduleMissingSquashes(meta: LayerMeta): void {
    const missing: [string, number][] = [];
    for (let cur: LayerMeta | undefined = meta; cur; cur = cur.parent ? this.layers.get(cur.parent) : undefined) {
      for (const level of squashLevelsEndingAt(cur.depth)) if (!this.squashes.has(`${cur.id}:${level}`)) missing.push([cur.id, level]);
    }
    for (const [top, level] of missing.reverse()) this.scheduleSquash(top, level);
  }

  private scheduleSquash(top: string, level: number): void {
    this.squashesPending++;
    this.squashChain = this.squashChain
      .then(() => (this.closed ? undefined : this.runSquash(top, level)))
      .catch(() => {
        // A failed squash only leaves a longer stack; the layers themselves are intact.
      })
      .finally(() => {
        this.squashesPending--;
      });
  }

  private async runSquash(top: string, level: number): Promise<void> {
    if (!this.layers.has(top) || this.squashes.has(`${top}:${level}`)) return;
    const count = SQUASH_FANOUT ** level;
    const sources = stackSegments(this.source(), top, count, level - 1);
    // What lies below the block (older layers, then the base) decides which whiteouts still hide something.
    const topMeta = this.get(top);
    let bottom: LayerMeta | undefined = topMeta;
    for (let i = 1; i < count && bottom; i++) bottom = bottom.parent ? this.layers.get(bottom.parent) : undefined;
    const belowTop = bottom?.parent ? this.layers.get(bottom.parent) : undefined;
    const below = [...(belowTop ? this.stackOf(belowTop) : []), ...topMeta.base.lowers];
    const name = squashName(top, level);
    const tmp = `squashes/.tmp-${top}-L${level}-${randomBytes(4).toString("hex")}`;
    const meta = JSON.stringify({ v: 1, top, level, count, createdAt: new Date().toISOString() });
    await this.helper.call(Op.squash, [tmp, name, meta, ...sources, "--below", ...below]);
    this.squashes.set(`${top}:${level}`, `${name}/d`);
  }

  /** Resolves when no squash is queued or running. */
  async idle(): Promise<void> {
    while (this.squashesPending > 0) await this.squashChain;
  }

  stop(): void {
    this.closed = true;
  }

  /**
   * Removes every layer neither in `keep` nor an ancestor of one (nor in use by a live sandbox),
   * the squashes topped by removed layers, and stray unindexed layer dirs.
   */
  async collect(keep: readonly string[], inUse: readonly string[]): Promise<{ removed: string[]; bytesFreed: number }> {
    await this.idle();
    const needed = new Set<string>();
    for (const ref of [...keep, ...inUse]) {
      let cur = this.layers.get(ref);
      while (cur && !needed.has(cur.id)) {
        needed.add(cur.id);
        cur = cur.parent ? this.layers.get(cur.parent) : undefined;
      }
    }
    const removed: string[] = [];
    let bytesFreed = 0;
    for (const [id, meta] of this.layers) {
      if (needed.has(id)) continue;
      // Unindex first: a half-removed layer must never be mounted.
      this.layers.delete(id);
      await rm(path.join(this.dataDir, "layers", id), { recursive: true, force: true });
      removed.push(id);
      bytesFreed += meta.bytes;
    }
    for (const [key, dir] of this.squashes) {
      const top = key.split(":")[0] ?? "";
      if (this.layers.has(top)) continue;
      this.squashes.delete(key);
      await rm(path.join(this.dataDir, path.dirname(dir)), { recursive: true, force: true });
    }
    for (const entry of await readdir(path.join(this.dataDir, "layers"))) {
      if (LAYER_REF.test(entry) && !this.layers.has(entry)) {
        await rm(path.join(this.dataDir, "layers", entry), { recursive: true, force: true });
        removed.push(entry);
      }
    }
    return { removed, bytesFreed };
  }
}

async function readJson<T>(file: string, parse: (v: unknown) => { success: true; data: T } | { success: false }): Promise<T | null> {
  try {
    const r = parse(JSON.parse(await readFile(file, "utf8")));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}
