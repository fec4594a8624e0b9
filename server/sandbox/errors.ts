/** Errors of the execution layer. Route handlers map them to HTTP statuses; nothing else inspects messages. */

export class SandboxError extends Error {
  override name = "SandboxError";
}

/** A checkpoint ref that does not exist, was collected, or whose stored data is missing or corrupt. */
export class CheckpointNotFoundError extends SandboxError {
  override name = "CheckpointNotFoundError";
  constructor(readonly ref: string, detail?: string) {
    super(`checkpoint ${ref} not found${detail ? `: ${detail}` : ""}`);
  }
}

/** The machine cannot run this driver (missing privileges, kernel feature or engine); the message says what is needed. */
export class DriverUnavailableError extends SandboxError {
  override name = "DriverUnavailableError";
}

/** The sandbox was destroyed or died. */
export class SandboxGoneError extends SandboxError {
  override name = "SandboxGoneError";
  constructor(readonly sandboxId: string) {
    super(`sandbox ${sandboxId} is gone`);
  }
}

/** Out of disk, memory or process slots while writing state. */
export class ResourceExhaustedError extends SandboxError {
  override name = "ResourceExhaustedError";
}
