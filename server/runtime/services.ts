import { env } from "../config/env";
import { createPolicy, type PolicyConfig } from "../policy/create-policy";
import type { Policy } from "../policy/types";
import { createDriver } from "../sandbox/factory";
import type { SandboxDriver } from "../sandbox/types";
import type { SproutTaskFile } from "../tasks/builtin/schema";
import { syncBuiltinSuite } from "../tasks/sync-builtin-suite";
import { singleton } from "./singleton";

/** The process's long-lived parts, made on first use from the settings. */
interface Services {
  driver: Promise<SandboxDriver>;
  plans: Promise<Map<string, SproutTaskFile>>;
}

const services: Partial<Services> = singleton("services", (): Partial<Services> => ({}));

/** The sandbox driver SPROUT_DRIVER names, initialised once (which also cleans up leftovers of an earlier process). */
export function sandboxDriver(): Promise<SandboxDriver> {
  services.driver ??= (async () => {
    const driver = createDriver({ driver: env().SPROUT_DRIVER, dataDir: env().dataDir, localHelpers: env().SPROUT_LOCAL_HELPERS });
    await driver.init();
    return driver;
  })();
  return services.driver;
}

/** The built-in suite, synced into the database once per process; the demo policy's plans come with it. */
export function builtinPlans(): Promise<Map<string, SproutTaskFile>> {
  services.plans ??= syncBuiltinSuite().then((s) => s.plans);
  return services.plans;
}

/** The policy configuration the settings describe. */
export function policyConfigFromEnv(): PolicyConfig {
  const e = env();
  if (e.SPROUT_POLICY === "openai") {
    return { kind: "openai", baseUrl: e.OPENAI_BASE_URL!, model: e.SPROUT_MODEL!, temperature: e.SPROUT_TEMPERATURE, maxTokens: e.SPROUT_MAX_COMPLETION_TOKENS };
  }
  return { kind: "demo", mistakeRate: e.SPROUT_DEMO_MISTAKE_RATE };
}

export async function policyFor(config: PolicyConfig): Promise<Policy> {
  return createPolicy(config, { plans: await builtinPlans(), apiKey: env().OPENAI_API_KEY });
}
