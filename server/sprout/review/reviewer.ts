import type { ChatMessage, Policy } from "../../policy/types";
import type { ReviewInput } from "./review-input";
import type { Guidance } from "./review-prompt";

export interface ReviewReply {
  text: string;
  promptTokens: number;
  completionTokens: number;
}

export interface ReviewOptions {
  maxBranches: number;
  guidance: Guidance;
  seed: number;
  signal?: AbortSignal;
}

/** Reads failed attempts and answers with boundaries and starting turns (JSON text, validated by the caller). */
export interface Reviewer {
  readonly name: string;
  review(input: ReviewInput, prompt: ChatMessage[], options: ReviewOptions): Promise<ReviewReply>;
}

/** The actor policy itself as reviewer: the same model, asked for text instead of a tool call. */
export function createPolicyReviewer(policy: Policy): Reviewer {
  return {
    name: policy.name,
    async review(input, prompt, options) {
      const turn = await policy.next({ messages: prompt, tools: [], taskName: input.taskName, seed: options.seed, signal: options.signal });
      return { text: turn.message, promptTokens: turn.promptTokens, completionTokens: turn.completionTokens };
    },
  };
}
