/** Connecting to the engine, and turning its transport failures into the execution layer's errors. */
import Docker from "dockerode";
import { DriverUnavailableError } from "../errors";

export interface DockerConnection {
  docker: Docker;
  /** Where the engine is expected, for messages. */
  endpoint: string;
}

export function connectDocker(socketPath?: string): DockerConnection {
  // Without a socket path dockerode follows DOCKER_HOST, then /var/run/docker.sock, like the docker CLI.
  const docker = socketPath ? new Docker({ socketPath }) : new Docker();
  const endpoint = socketPath ?? process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock";
  return { docker, endpoint };
}

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ENOENT", "EACCES", "ECONNRESET", "EPIPE", "ETIMEDOUT"]);

/** The HTTP status of a failed engine call, if it got that far. */
export function statusOf(err: unknown): number | undefined {
  if (typeof err === "object" && err !== null && "statusCode" in err && typeof err.statusCode === "number") {
    return err.statusCode;
  }
  return undefined;
}

function codeOf(err: unknown): string | undefined {
  if (typeof err === "object" && err !== null && "code" in err && typeof err.code === "string") return err.code;
  return undefined;
}

export function unavailable(endpoint: string, err: unknown): DriverUnavailableError {
  const why = codeOf(err) ?? (err instanceof Error ? err.message : String(err));
  return new DriverUnavailableError(
    `Docker engine at ${endpoint} does not answer (${why}); start one with scripts/ensure-docker.sh ` +
      `(installs docker.io and starts dockerd) or point DOCKER_HOST at a running engine`,
  );
}

/** Rethrows connection failures as DriverUnavailableError; everything else unchanged. */
export function rethrowEngineError(endpoint: string, err: unknown): never {
  const code = codeOf(err);
  if (code && CONNECTION_CODES.has(code) && statusOf(err) === undefined) throw unavailable(endpoint, err);
  throw err;
}

/** Runs one engine call, mapping an unreachable engine to DriverUnavailableError. */
export async function engineCall<T>(endpoint: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    rethrowEngineError(endpoint, err);
  }
}
