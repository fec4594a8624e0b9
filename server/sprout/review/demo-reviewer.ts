import { promptTokens, textTokens } from "../../policy/token-count";
import type { AttemptTurn } from "./review-input";
import type { Reviewer } from "./reviewer";

/**
 * The demo policy's reviewer. It knows only what a reviewer is shown: the
 * trajectories and, unless the input is reward-only, the verifier's feedback —
 * never the task's reference solution. It scores each turn that changed state by
 * how much of the feedback points at it (files named in tracebacks, identifiers
 * from failing tests and messages), prefers later turns (agents fail late), and
 * resumes just before the best candidates. When a branch resumed after turn t
 * still failed, a change after t alone did not explain the failure, so it looks
 * before t. With reward only it has nothing to go on and picks state-changing
 * turns at random, which is why that ablation loses.
 */

const MUTATING = /^(edit|create) |(^|[\s;&|])(rm|mv|cp|sed -i|tee|truncate|chmod|touch|mkdir|python3? -c)\b|>>?\s*\S/;
const STOP = new Set(["test", "tests", "self", "assert", "error", "errors", "failed", "traceback", "line", "file", "none", "true", "false", "workspace", "python", "with", "from", "that", "this", "expected"]);

function clues(feedback: string): { files: Set<string>; words: Set<string> } {
  const files = new Set<string>();
  for (const m of feedback.matchAll(/\/workspace\/[\w./-]+|\b[\w-]+\.(?:py|sh|json|ini|toml|cfg|md|txt|csv|yaml|yml|mk)\b/g)) {
    const base = m[0].split("/").pop()!;
    if (!base.startsWith("test_")) files.add(base);
  }
  const words = new Set<string>();
  for (const m of feedback.matchAll(/[A-Za-z_][A-Za-z0-9_]{3,}/g)) {
    for (const part of m[0].toLowerCase().split("_")) if (part.length >= 4 && !STOP.has(part)) words.add(part);
  }
  return { files, words };
}

function fileOf(call: string): string | null {
  return /^(?:edit|create|view) (\/[^\s:]+)/.exec(call)?.[1] ?? null;
}

function random(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

interface Candidate {
  attempt: string;
  turn: AttemptTurn;
  boundary: AttemptTurn;
  score: number;
  why: string;
}

export function createDemoReviewer(): Reviewer {
  return {
    name: "demo-reviewer",
    review(input, prompt, options) {
      const rand = random(options.seed);
      const candidates: Candidate[] = [];
      // Failed branches that resumed late say the cause lies earlier than where they resumed.
      const triedAfter = input.attempts.map((a) => a.resumedAfter).filter((t): t is number => t !== null);
      const earliestTried = triedAfter.length > 0 ? Math.min(...triedAfter) : Infinity;
      for (const a of input.attempts) {
        const { files, words } = clues(a.feedback ?? "");
        a.turns.forEach((t, i) => {
          const boundary = a.turns[i - 1];
          if (!boundary?.resumable || !MUTATING.test(t.call)) return;
          const lower = t.call.toLowerCase();
          const fileHits = [...files].filter((f) => lower.includes(f.toLowerCase()));
          const wordHits = [...words].filter((w) => lower.includes(w));
          // A branch's own turns after its resume point are new actions, not the prefix it was meant to fix.
          const inPrefix = a.resumedAfter === null || t.index <= a.resumedAfter;
          const alreadyTried = inPrefix && t.index > earliestTried ? 4 : 0;
          const score =
            input.mode === "reward-only"
              ? rand()
              : fileHits.length * 3 + Math.min(wordHits.length, 4) + (i / a.turns.length) * 1.5 + (a.partialScore ?? 0) - alreadyTried;
          const why = fileHits.length > 0 ? `it changed ${fileHits.join(", ")}, which the failing tests point at` : wordHits.length > 0 ? `it touched ${wordHits.slice(0, 3).join(", ")}, named in the failures` : "it is a late change of state";
          candidates.push({ attempt: a.label, turn: t, boundary, score, why });
        });
      }
      // Nothing changed state (an attempt that only looked around): resume before its latest turns.
      if (candidates.length === 0) {
        for (const a of input.attempts) {
          a.turns.forEach((t, i) => {
            const boundary = a.turns[i - 1];
            if (boundary?.resumable) candidates.push({ attempt: a.label, turn: t, boundary, score: i / a.turns.length, why: "it is where the attempt stopped making progress" });
          });
        }
      }
      candidates.sort((x, y) => y.score - x.score);
      const chosen: Candidate[] = [];
      for (const c of candidates) {
        if (chosen.length >= options.maxBranches) break;
        // Distinct suspects: the same step repeated in several attempts is one suspect, not several.
        if (!chosen.some((x) => x.boundary.turnId === c.boundary.turnId || x.turn.call === c.turn.call)) chosen.push(c);
      }
      const firstFailure = (label: string) => {
        const feedback = input.attempts.find((a) => a.label === label)?.feedback ?? "";
        return feedback.split("\n").find((l) => /^(FAIL|ERROR|AssertionError|\w+Error)/.test(l.trim()))?.trim() ?? "";
      };
      const branches = chosen.map((c) => {
        const seen = input.mode === "feedback" ? firstFailure(c.attempt) : "";
        const advice = `Attempt ${c.attempt} likely went wrong at turn ${c.turn.index} (${c.turn.call.slice(0, 120)}): ${c.why}.${seen ? ` The verifier reports: ${seen}.` : ""} Redo that step correctly.`;
        const file = fileOf(c.turn.call);
        return {
          attempt: c.attempt,
          turn: c.boundary.index,
          rationale: advice,
          starting_turn:
            options.guidance === "tool-call"
              ? { kind: "tool_call", tool: file ? "view" : "bash", arguments: file ? { path: file } : { command: "ls -la" }, message: advice }
              : { kind: "text", text: advice },
        };
      });
      const text = JSON.stringify({ analysis: chosen.length ? `${chosen.length} resume point(s) chosen from ${input.attempts.length} failed attempt(s).` : "nothing to resume from", branches });
      return Promise.resolve({ text, promptTokens: promptTokens(prompt, "[]"), completionTokens: textTokens(text) });
    },
  };
}
