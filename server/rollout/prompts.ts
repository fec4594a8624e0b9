import type { ChatMessage } from "../policy/types";

/** The context every rollout of a task starts from. */
export function initialMessages(task: { instruction: string; workdir: string }): ChatMessage[] {
  return [
    {
      role: "system",
      content: [
        "You are a software engineering agent working in a Linux sandbox with no network.",
        `The project is in ${task.workdir}. Use the tools to explore, edit and run code; one tool call per turn.`,
        "When the task is done, call submit. Hidden tests will then check your work.",
      ].join("\n"),
    },
    { role: "user", content: task.instruction },
  ];
}
