import type { SandboxDriver } from "../sandbox/types";

/**
 * The process's sandbox driver, loaded on first need: most inspector reads (seed
 * data, turns without checkpoints) never touch a sandbox, and loading the driver
 * modules is what may fail (helper not built, no Docker), so that failure stays
 * confined to the diff that needed it.
 */
export async function inspectDriver(): Promise<SandboxDriver> {
  const { sandboxDriver } = await import("../runtime/services");
  return sandboxDriver();
}
