/** A sandbox is one container that idles while commands run in it through exec. */
import { posix } from "node:path";
import type Docker from "dockerode";
import { SandboxError, SandboxGoneError } from "../errors";
import type { CheckpointResult, ExecOptions, ExecResult, PtyOptions, PtySession, Sandbox, WriteFileOptions } from "../types";
import { commitCheckpoint } from "./commit-checkpoint";
import { rethrowEngineError, statusOf } from "./docker-client";
import { openPty } from "./open-pty";
import { readFileFromArchive } from "./reader-container";
import { rethrowGone, runExec } from "./run-exec";
import { tarOneFile } from "./tar-archive";

export interface DockerSandboxState {
  id: string;
  docker: Docker;
  endpoint: string;
  container: Docker.Container;
  imageId: string;
  imageLayers: number;
  /** What changes(ref, null) compares with. */
  baseImageId: string;
  /** The checkpoint this sandbox was restored from, until it makes its own. */
  lastCheckpointRef: string | null;
  workdir: string;
  env: Record<string, string>;
  squashAtLayers: number;
  scope: string;
  onDestroyed: (sandbox: DockerSandbox) => void;
}

export class DockerSandbox implements Sandbox {
  readonly driver = "docker" as const;
  readonly id: string;
  private destroyed = false;
  /** Checkpoints run one after another so each knows its parent. */
  private checkpointChain: Promise<unknown> = Promise.resolve();

  constructor(private readonly state: DockerSandboxState) {
    this.id = state.id;
  }

  get containerId(): string {
    return this.state.container.id;
  }

  private alive(): void {
    if (this.destroyed) throw new SandboxGoneError(this.id);
  }

  private target(): { container: Docker.Container; sandboxId: string } {
    return { container: this.state.container, sandboxId: this.id };
  }

  private abs(path: string): string {
    return posix.resolve(this.state.workdir, path);
  }

  async exec(command: string | string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.alive();
    const argv = typeof command === "string" ? ["/bin/sh", "-c", command] : command;
    try {
      return await runExec(this.target(), argv, {
        ...options,
        cwd: options.cwd ? this.abs(options.cwd) : this.state.workdir,
        env: { ...this.state.env, ...options.env },
      });
    } catch (err) {
      rethrowEngineError(this.state.endpoint, err);
    }
  }

  async readFile(path: string): Promise<Buffer> {
    this.alive();
    let data: Buffer | null;
    try {
      data = await readFileFromArchive(this.state.container, this.abs(path));
    } catch (err) {
      if (err instanceof SandboxError) throw err;
      rethrowGone(this.id, err);
    }
    if (data === null) throw new SandboxError(`${this.abs(path)}: no such file in sandbox ${this.id}`);
    return data;
  }

  async writeFile(path: string, data: string | Buffer, options: WriteFileOptions = {}): Promise<void> {
    this.alive();
    const target = this.abs(path);
    const dir = posix.dirname(target);
    const archive = tarOneFile(posix.basename(target), Buffer.from(data), { mode: options.mode ?? 0o644 });
    const put = (): Promise<unknown> => this.state.container.putArchive(archive, { path: dir });
    try {
      await put();
    } catch (err) {
      if (statusOf(err) !== 404) rethrowGone(this.id, err);
      // The archive API extracts into an existing directory only; mkdir -p keeps existing parents' modes intact.
      const made = await this.exec(["mkdir", "-p", "--", dir], { timeoutMs: 30_000 });
      if (made.exitCode !== 0) throw new SandboxError(`cannot create ${dir}: ${made.stderr.trim()}`);
      await put().catch((e: unknown) => rethrowGone(this.id, e));
    }
  }

  checkpoint(): Promise<CheckpointResult> {
    const run = this.checkpointChain.then(() => this.checkpointNow());
    this.checkpointChain = run.catch(() => undefined);
    return run;
  }

  private async checkpointNow(): Promise<CheckpointResult> {
    this.alive();
    const started = performance.now();
    const parentRef = this.state.lastCheckpointRef;
    let out;
    try {
      out = await commitCheckpoint({
        docker: this.state.docker,
        container: this.state.container,
        parentRef,
        baseImageId: this.state.baseImageId,
        scope: this.state.scope,
        imageLayers: this.state.imageLayers,
        squashAtLayers: this.state.squashAtLayers,
      });
    } catch (err) {
      rethrowEngineError(this.state.endpoint, err);
    }
    this.state.lastCheckpointRef = out.ref;
    return { ref: out.ref, parentRef, bytesAdded: out.bytesAdded, durationMs: performance.now() - started };
  }

  async openPty(options: PtyOptions): Promise<PtySession> {
    this.alive();
    return openPty(this.target(), {
      ...options,
      cwd: options.cwd ? this.abs(options.cwd) : this.state.workdir,
      env: { ...this.state.env, ...options.env },
    });
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    this.state.onDestroyed(this);
    try {
      await this.state.container.remove({ force: true, v: true });
    } catch (err) {
      if (statusOf(err) !== 404 && statusOf(err) !== 409) rethrowEngineError(this.state.endpoint, err);
    }
  }
}
