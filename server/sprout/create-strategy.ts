import type { PolicyConfig } from "../policy/create-policy";
import type { Policy } from "../policy/types";
import type { SandboxDriver } from "../sandbox/types";
import { entropyStrategy, randomStrategy, reviewStrategy, verifierScoreStrategy, type BoundaryStrategy, type StrategyName } from "./boundary-strategy";
import { createDemoReviewer } from "./review/demo-reviewer";
import { createPolicyReviewer } from "./review/reviewer";

/** The boundary strategy of an experiment; the reviewer is the actor policy itself (the demo policy has its own). */
export function createStrategy(name: StrategyName, deps: { policy: Policy; policyConfig: PolicyConfig; driver: SandboxDriver }): BoundaryStrategy {
  switch (name) {
    case "review":
      return reviewStrategy(deps.policyConfig.kind === "demo" ? createDemoReviewer() : createPolicyReviewer(deps.policy));
    case "verifier-score":
      return verifierScoreStrategy(deps.driver);
    case "random":
      return randomStrategy();
    case "entropy":
      return entropyStrategy();
  }
}
