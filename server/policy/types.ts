import type { RawToolCall, TOOL_DEFINITIONS } from "../rollout/tools";

/** A chat message in the OpenAI chat-completions shape; the agent context is a list of these. */
export type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string; tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[] }
  | { role: "tool"; content: string; tool_call_id: string };

/** What the policy proposes for the next turn. The engine executes it; the policy never touches the sandbox. */
export interface PolicyTurn {
  message: string;
  toolCall: RawToolCall | null;
  promptTokens: number;
  completionTokens: number;
  /** Per-token log-probabilities of the completion, when the server returned them. */
  logprobs?: { token: string; logprob: number }[];
}

export interface PolicyRequest {
  messages: ChatMessage[];
  /** the tools the model may call; empty when the policy is asked for text (the review) */
  tools: readonly (typeof TOOL_DEFINITIONS)[number][];
  /** The task's name (the demo policy looks up its reference actions by it). */
  taskName: string;
  /** Stable per rollout, so a seeded policy is reproducible. */
  seed: number;
  signal?: AbortSignal;
}

/** Proposes the next assistant turn from the context. */
export interface Policy {
  readonly name: string;
  next(request: PolicyRequest): Promise<PolicyTurn>;
}

/** The model endpoint failed for good (after retries) or answered something unusable. */
export class PolicyError extends Error {
  override name = "PolicyError";
}
