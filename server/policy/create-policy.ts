import type { SproutTaskFile } from "../tasks/builtin/schema";
import { createDemoPolicy } from "./demo-policy";
import { createOpenAiPolicy } from "./openai-policy";
import type { Policy } from "./types";

/** How to make the actor policy; stored with experiments (without the API key). */
export type PolicyConfig =
  | { kind: "demo"; mistakeRate: number }
  | { kind: "openai"; baseUrl: string; model: string; temperature: number; maxTokens?: number; logprobs?: boolean };

export function createPolicy(config: PolicyConfig, deps: { plans: ReadonlyMap<string, SproutTaskFile>; apiKey?: string }): Policy {
  switch (config.kind) {
    case "demo":
      return createDemoPolicy({ plans: deps.plans, mistakeRate: config.mistakeRate });
    case "openai":
      return createOpenAiPolicy({ ...config, apiKey: deps.apiKey });
  }
}
