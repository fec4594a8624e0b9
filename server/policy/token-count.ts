import { countTokens } from "gpt-tokenizer";
import type { ChatMessage } from "./types";

/**
 * Token counts from a real tokenizer (o200k_base, as GPT-4o-class models use), over
 * the messages as a chat template would lay them out: role and content of each
 * message plus ~4 tokens of framing per message. Counts per message are cached by
 * object identity, since a rollout's context grows by appending the same objects.
 */
const cache = new WeakMap<object, number>();
const PER_MESSAGE = 4;

export function messageTokens(m: ChatMessage): number {
  const hit = cache.get(m);
  if (hit !== undefined) return hit;
  let n = PER_MESSAGE + countTokens(m.role) + countTokens(m.content);
  if (m.role === "assistant" && m.tool_calls) {
    for (const c of m.tool_calls) n += countTokens(c.function.name) + countTokens(c.function.arguments);
  }
  cache.set(m, n);
  return n;
}

export function promptTokens(messages: readonly ChatMessage[], toolsJson: string): number {
  return messages.reduce((sum, m) => sum + messageTokens(m), countToolTokens(toolsJson));
}

let toolsCache: { json: string; n: number } | undefined;
function countToolTokens(json: string): number {
  if (toolsCache?.json !== json) toolsCache = { json, n: countTokens(json) };
  return toolsCache.n;
}

export function textTokens(text: string): number {
  return countTokens(text);
}
