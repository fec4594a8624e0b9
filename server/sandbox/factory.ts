import path from "node:path";
import { createDockerDriver } from "./docker/docker-driver";
import { createLocalDriver } from "./local/local-driver";
import type { DriverName, SandboxDriver } from "./types";

function assertUnreachable(value: never): never {
  throw new Error(`unknown sandbox driver ${String(value)}`);
}

export interface DriverSettings {
  driver: DriverName;
  /** the project's data directory; the local driver keeps layers under <dataDir>/sandbox */
  dataDir: string;
  /** the local driver's helper processes (default: one per two CPUs, at most 4) */
  localHelpers?: number;
}

/** The driver the settings name (SPROUT_DRIVER). */
export function createDriver(settings: DriverSettings): SandboxDriver {
  switch (settings.driver) {
    case "local":
      return createLocalDriver({ dataDir: path.join(settings.dataDir, "sandbox"), helpers: settings.localHelpers });
    case "docker":
      return createDockerDriver({});
    default:
      return assertUnreachable(settings.driver);
  }
}
