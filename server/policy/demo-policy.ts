import type { Mistake, SproutTaskFile, ToolCall as ReferenceCall } from "../tasks/builtin/schema";
import type { RawToolCall } from "../rollout/tools";
import { promptTokens, textTokens } from "./token-count";
import { PolicyError, type ChatMessage, type Policy, type PolicyRequest, type PolicyTurn } from "./types";

/**
 * The built-in demo policy: a deterministic stand-in for a model, for the built-in
 * tasks only. It follows a task's reference actions, but at each step where the
 * task lists a plausible mistake it takes that mistake with probability
 * `mistakeRate` (seeded per rollout and step) and then carries on from the state
 * it made — so some roots fail late, in recoverable ways. It reads its position
 * from the context (its own past tool calls), never from hidden state, so a branch
 * resumed from any turn continues correctly.
 *
 * Guidance works the way it would on a model that reads it: a starting turn
 * (a reviewer's or a person's, kept in the context for the rest of the branch)
 * that names a file a mistake touches and a test that mistake makes fail
 * — what a hint derived from verifier feedback says — stops the policy from
 * repeating that mistake; one that names only the file halves its chance; any
 * other mistake is sampled afresh, as a root would. So a rollback without a
 * hint, or with a hint written without feedback, helps less.
 * It is a demo of the machinery, not a model: its results say nothing about models.
 */

export interface DemoPolicyOptions {
  /** Reference actions and mistakes per built-in task name. */
  plans: ReadonlyMap<string, SproutTaskFile>;
  /** Probability of taking each listed mistake when its step comes (default 0.25). */
  mistakeRate?: number;
}

/** Marks a user message that carries a starting-turn hint (text guidance) for a branch. */
export const HINT_PREFIX = "Reviewer guidance for this attempt:";

type Position = { step: number; mistake: { m: Mistake; next: number } | null; made: Set<string> };

function toRaw(call: ReferenceCall, id: string): RawToolCall {
  switch (call.tool) {
    case "bash":
      return { id, name: "bash", arguments: JSON.stringify({ command: call.command }) };
    case "view":
      return { id, name: "view", arguments: JSON.stringify({ path: call.path }) };
    case "create":
      return { id, name: "create", arguments: JSON.stringify({ path: call.path, file_text: call.content }) };
    case "edit":
      return { id, name: "edit", arguments: JSON.stringify({ path: call.path, old_str: call.old_str, new_str: call.new_str }) };
    case "submit":
      return { id, name: "submit", arguments: "{}" };
  }
}

/** Canonical form of a call for comparison: name plus parsed arguments. */
function key(name: string, args: string): string {
  try {
    const parsed = JSON.parse(args || "{}") as Record<string, unknown>;
    return `${name}:${JSON.stringify(Object.keys(parsed).sort().map((k) => [k, parsed[k]]))}`;
  } catch {
    return `${name}:${args}`;
  }
}

// The policy re-reads the whole context every turn: canonical keys are computed once per call object.
function memoized<T extends object>(compute: (o: T) => string): (o: T) => string {
  const cache = new WeakMap<T, string>();
  return (o) => {
    let k = cache.get(o);
    if (k === undefined) cache.set(o, (k = compute(o)));
    return k;
  };
}
const refKey = memoized<ReferenceCall>((c) => {
  const raw = toRaw(c, "");
  return key(raw.name, raw.arguments);
});
const callKey = memoized<{ function: { name: string; arguments: string } }>((c) => key(c.function.name, c.function.arguments));

/** Where the trajectory in `messages` stands in the plan. */
export function alignPosition(plan: SproutTaskFile, messages: readonly ChatMessage[]): Position {
  const pos: Position = { step: 0, mistake: null, made: new Set() };
  const refKeys = plan.reference.map(refKey);
  for (const m of messages) {
    // A starting turn written by a reviewer is not one of the policy's own steps.
    if (m.role !== "assistant" || !m.tool_calls || m.content.startsWith(HINT_PREFIX)) continue;
    for (const c of m.tool_calls) {
      const k = callKey(c);
      if (pos.mistake) {
        const expected = pos.mistake.m.actions[pos.mistake.next];
        if (expected && refKey(expected) === k) {
          pos.mistake.next += 1;
          if (pos.mistake.next >= pos.mistake.m.actions.length) {
            pos.step = pos.mistake.m.atStep + 1;
            pos.mistake = null;
          }
          continue;
        }
        // Something else interrupted the mistake (a hint, a person): the mistake stays half-made.
        pos.step = pos.mistake.m.atStep + 1;
        pos.mistake = null;
      }
      if (refKeys[pos.step] === k) {
        pos.step += 1;
        continue;
      }
      const mistake = plan.mistakes.find((x) => x.atStep === pos.step && x.actions[0] && refKey(x.actions[0]) === k);
      if (mistake) {
        pos.made.add(mistake.id);
        if (mistake.actions.length === 1) pos.step = mistake.atStep + 1;
        else pos.mistake = { m: mistake, next: 1 };
        continue;
      }
      // A call the plan does not know (a person's, or a hint naming a later step): jump past it when the plan has it.
      const later = refKeys.indexOf(k, pos.step);
      if (later >= 0) pos.step = later + 1;
    }
  }
  return pos;
}

/** A deterministic uniform number in [0, 1) from a seed and a step. */
function chance(seed: number, step: number, salt: string): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const ch of `${step}:${salt}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  return (h >>> 0) / 4294967296;
}

/** Every starting turn in the context (text guidance, or the message of a reviewer's tool call), with its call's arguments. */
export function guidanceIn(messages: readonly ChatMessage[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    if ((m.role === "user" || m.role === "assistant") && m.content.startsWith(HINT_PREFIX)) {
      parts.push(m.content);
      if (m.role === "assistant") for (const c of m.tool_calls ?? []) parts.push(c.function.arguments);
    }
  }
  return parts.join("\n");
}

const FILE_TOKEN = /(?:\/?[\w.*-]+\/)*[\w*-]+(?:\.[\w-]+)*\.(?:py|sh|json|ini|toml|cfg|conf|md|txt|csv|ya?ml|in|bak|html)\b(?:\.bak)?/g;

/** Files a shell command changes (removes, moves, copies over, edits in place, writes), as written in it. */
function changedBy(command: string): string[] {
  const files: string[] = [];
  for (const segment of command.split(/&&|\|\||[;|\n()]/)) {
    const words = segment.trim().split(/\s+/).map((w) => w.replace(/^['"]|['"]$/g, ""));
    const operands = words.slice(1).filter((w) => !w.startsWith("-") && !/^\d?>/.test(w));
    if (["rm", "mv", "touch", "truncate", "unlink", "tee"].includes(words[0] ?? "")) files.push(...operands);
    if (words[0] === "cp" && operands.length >= 2) files.push(operands.at(-1)!);
    if (words[0] === "sed" && words.some((w) => /^-\w*i/.test(w))) files.push(operands.at(-1) ?? "");
    for (const m of segment.matchAll(/>>?\s*([^\s&|;]+)/g)) files.push(m[1]!);
  }
  for (const m of command.matchAll(/open\(\s*['"]([^'"]+)['"]\s*,\s*['"][wa]/g)) files.push(m[1]!);
  return files;
}

/** The files a mistake's actions change, relative to the workspace (globs such as `*.py` kept). */
export function footprint(m: Mistake): string[] {
  const files = new Set<string>();
  const add = (p: string) => {
    const rel = p.replace(/^\/workspace\//, "").replace(/^\.\//, "");
    if (rel && !rel.startsWith("/") && !rel.startsWith("&") && !rel.startsWith("$")) files.add(rel);
  };
  for (const a of m.actions) {
    if (a.tool === "edit" || a.tool === "create") add(a.path);
    if (a.tool === "bash") changedBy(a.command).forEach(add);
  }
  return [...files];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The guidance names one of the files the mistake touches (by path, base name, or a file its glob matches). */
function namesFile(m: Mistake, guidance: string): boolean {
  const named = [...guidance.matchAll(FILE_TOKEN)].map((t) => t[0].replace(/^\/workspace\//, ""));
  return footprint(m).some((f) => {
    if (f.includes("*")) {
      const re = new RegExp(`^${f.split("*").map(escape).join("[^/]*")}$`);
      return named.some((n) => re.test(n) || re.test(n.split("/").pop()!));
    }
    return named.some((n) => n === f || f.endsWith(`/${n}`) || n.endsWith(`/${f}`));
  });
}

/** The guidance names a test the mistake makes fail (its listed failing tests, or those its symptom names). */
function namesFailure(m: Mistake, guidance: string): boolean {
  const tests = m.failingTests ?? [...m.symptom.matchAll(/\btest_\w+/g)].map((t) => t[0]);
  return tests.some((t) => new RegExp(`\\b${escape(t)}\\b`).test(guidance));
}

/** How strongly the guidance in the context steers away from a mistake: 0 not at all, 1 completely. */
export function guidanceAgainst(m: Mistake, guidance: string): number {
  if (!guidance || !namesFile(m, guidance)) return 0;
  return namesFailure(m, guidance) ? 1 : 0.5;
}

export function createDemoPolicy(options: DemoPolicyOptions): Policy {
  const rate = options.mistakeRate ?? 0.25;
  return {
    name: "demo",
    next(request: PolicyRequest): Promise<PolicyTurn> {
      const plan = options.plans.get(request.taskName);
      if (!plan) return Promise.reject(new PolicyError(`the demo policy only knows the built-in tasks, not "${request.taskName}"`));
      const pos = alignPosition(plan, request.messages);
      let call: ReferenceCall;
      let fallback: string;
      if (pos.mistake) {
        call = pos.mistake.m.actions[pos.mistake.next]!;
        fallback = "Continuing with the change.";
      } else if (pos.step >= plan.reference.length) {
        call = { tool: "submit" };
        fallback = "The work is done; submitting.";
      } else {
        const guidance = guidanceIn(request.messages);
        const candidates = plan.mistakes.filter((m) => m.atStep === pos.step && !pos.made.has(m.id));
        const taken = candidates.find((m) => chance(request.seed, pos.step, m.id) < rate * (1 - guidanceAgainst(m, guidance)));
        call = taken ? taken.actions[0]! : plan.reference[pos.step]!;
        fallback = "Next step.";
      }
      const id = `call_${pos.step}_${request.messages.length}`;
      const toolCall = toRaw(call, id);
      const message = call.thought ?? fallback;
      return Promise.resolve({
        message,
        toolCall,
        promptTokens: promptTokens(request.messages, JSON.stringify(request.tools)),
        completionTokens: textTokens(message) + textTokens(toolCall.name) + textTokens(toolCall.arguments) + 4,
      });
    },
  };
}
