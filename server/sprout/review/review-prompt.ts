import type { ChatMessage } from "../../policy/types";
import { renderReviewInput, type ReviewInput } from "./review-input";

export type Guidance = "tool-call" | "text" | "none";

/** The actor, prompted as analyst and reviewer of its own failed attempts. */
export function reviewPrompt(input: ReviewInput, maxBranches: number, guidance: Guidance, previousError?: string): ChatMessage[] {
  const startingTurn =
    guidance === "tool-call"
      ? `"starting_turn": {"kind": "tool_call", "tool": "<bash|view|create|edit>", "arguments": {…}, "message": "<what the agent says before the call>"}`
      : `"starting_turn": {"kind": "text", "text": "<guidance for the agent resuming there>"}`;
  const system = [
    "You are the analyst and reviewer of a coding agent's failed attempts at a task.",
    input.mode === "feedback"
      ? "Read each attempt with the verifier's feedback, find where it went wrong, and choose the turns to resume from: the last good turn before the mistake."
      : "Each attempt failed; only its reward is known. Choose the turns to resume from.",
    `Answer with one JSON object and nothing else:`,
    `{"analysis": "<what went wrong, briefly>", "branches": [{"attempt": "<A, B, …>", "turn": <index of the turn to resume AFTER>, "rationale": "<why>", ${startingTurn}}]}`,
    `Give between 1 and ${maxBranches} branches. A branch restores the files and the context as they were right after that turn${guidance === "none" ? "" : ", then runs your starting turn"}.`,
  ].join("\n");
  const messages: ChatMessage[] = [
    { role: "system", content: system },
    { role: "user", content: renderReviewInput(input) },
  ];
  if (previousError) messages.push({ role: "user", content: `Your previous answer could not be used: ${previousError}. Answer again with valid JSON.` });
  return messages;
}
