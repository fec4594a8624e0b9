/**
 * The execution layer's one driver interface. Drivers know nothing of turns,
 * rollouts or the database: they make sandboxes, run commands in them and freeze
 * their whole filesystem into checkpoints identified by a driver-specific `ref`.
 * The database lineage (server/checkpoint) records those refs.
 */

export type DriverName = "local" | "docker";

/** Where a fresh sandbox's filesystem comes from when it is not restored from a checkpoint. */
export type SandboxBase =
  /** The host's own root, read-only, with private paths (home directories, the project's data, other work trees) hidden. */
  | { kind: "host"; hiddenPaths?: string[] }
  /** A root filesystem directory or tarball (debootstrap, or exported from a Docker image). */
  | { kind: "rootfs"; path: string }
  /** A Docker image reference (docker driver), or a local base registered under that name (local driver). */
  | { kind: "image"; ref: string };

/** Resource bounds of a sandbox. */
export interface SandboxLimits {
  memoryBytes: number;
  pids: number;
  cpuSeconds: number;
  /** false (the default): no network at all, only loopback. */
  network: boolean;
}

export interface CreateSandboxOptions {
  /** Base filesystem; ignored when `fromCheckpoint` is given (the checkpoint knows its base). */
  base?: SandboxBase;
  /** Restore this checkpoint's filesystem into the new sandbox. */
  fromCheckpoint?: string;
  limits?: Partial<SandboxLimits>;
  /** Default working directory of exec and pty (created if missing). */
  workdir?: string;
  env?: Record<string, string>;
  /** Free-form labels (rollout id, purpose) kept with the sandbox so leftovers can be found. */
  labels?: Record<string, string>;
}

/** For the last operation of a rollout's turn. */
export interface CheckpointAfter {
  /**
   * The caller checkpoints right after this operation. A driver may start that checkpoint the moment
   * the operation ends; the sandbox's next checkpoint() then returns it, unless another operation came
   * in between. The local driver does; others checkpoint when asked.
   */
  checkpointAfter?: boolean;
}

export interface ExecOptions extends CheckpointAfter {
  stdin?: string | Buffer;
  cwd?: string;
  env?: Record<string, string>;
  /** Kill the command (and everything it started) after this long. */
  timeoutMs?: number;
  /** Cap for each of stdout and stderr; the rest is dropped and `truncated` set. */
  maxOutputBytes?: number;
}

export interface WriteFileOptions extends CheckpointAfter {
  mode?: number;
}

export interface ExecResult {
  /** Exit code, or 128+signal when killed; -1 when it timed out. */
  exitCode: number;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
  durationMs: number;
}

/** What a checkpoint call produced. */
export interface CheckpointResult {
  /** The driver's reference of the new checkpoint (layer id, image id). */
  ref: string;
  /** The checkpoint it is incremental on (the sandbox's previous checkpoint or its restore source), null for the first. */
  parentRef: string | null;
  /** Bytes stored for this checkpoint (what changed since the parent). */
  bytesAdded: number;
  durationMs: number;
}

/** A change between two checkpoints, as the inspector shows it. */
export interface FileChange {
  path: string;
  kind: "added" | "modified" | "deleted";
  /** "file" | "dir" | "symlink" | "other" */
  type: "file" | "dir" | "symlink" | "other";
  size: number;
}

export interface PtyOptions {
  cols: number;
  rows: number;
  cwd?: string;
  env?: Record<string, string>;
  /** Defaults to an interactive login shell. */
  command?: string[];
}

/** An interactive terminal inside a sandbox. Flow control: pause() stops reading until resume(). */
export interface PtySession {
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  onData(listener: (chunk: Buffer) => void): void;
  onExit(listener: (exitCode: number) => void): void;
  pause(): void;
  resume(): void;
  kill(): void;
}

/** A running sandbox. */
export interface Sandbox {
  readonly id: string;
  readonly driver: DriverName;
  /** A string runs under `/bin/sh -c`; an array runs as argv. */
  exec(command: string | string[], options?: ExecOptions): Promise<ExecResult>;
  readFile(path: string): Promise<Buffer>;
  writeFile(path: string, data: string | Buffer, options?: WriteFileOptions): Promise<void>;
  /** Freeze the whole filesystem as it is now; the sandbox keeps running on top of it. */
  checkpoint(): Promise<CheckpointResult>;
  openPty(options: PtyOptions): Promise<PtySession>;
  /** Stop everything in it and remove its writable state. Checkpoints it made stay. Idempotent. */
  destroy(): Promise<void>;
}

/** A checkpoint as the driver stores it. */
export interface StoredCheckpoint {
  ref: string;
  parentRef: string | null;
  bytes: number;
  createdAt: Date;
}

export interface CollectResult {
  removed: string[];
  bytesFreed: number;
}

export interface SandboxDriver {
  readonly name: DriverName;
  /** Prepare storage, and remove leftovers of an earlier process (mounts, containers, half-written layers). */
  init(): Promise<void>;
  create(options: CreateSandboxOptions): Promise<Sandbox>;
  listCheckpoints(): Promise<StoredCheckpoint[]>;
  /** Remove the stored data of every checkpoint that is neither in `keep` nor needed by one that is. */
  collect(keep: readonly string[]): Promise<CollectResult>;
  /** Files changed between `ref` and `baseRef` (null: the base filesystem). */
  changes(ref: string, baseRef: string | null): Promise<FileChange[]>;
  /** Read one file as it is in a checkpoint (null when absent). */
  readCheckpointFile(ref: string, path: string): Promise<Buffer | null>;
  /** Destroy every sandbox this driver started. */
  close(): Promise<void>;
}
