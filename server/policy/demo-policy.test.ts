import { describe, expect, it } from "vitest";
import type { SproutTaskFile } from "../tasks/builtin/schema";
import { TOOL_DEFINITIONS } from "../rollout/tools";
import { alignPosition, createDemoPolicy, guidanceAgainst, HINT_PREFIX } from "./demo-policy";
import type { ChatMessage, PolicyTurn } from "./types";

const plan: SproutTaskFile = {
  reference: [
    { tool: "view", path: "/workspace/a.py", thought: "Look at the code." },
    { tool: "edit", path: "/workspace/a.py", old_str: "x = 1", new_str: "x = 2" },
    { tool: "bash", command: "python3 a.py" },
    { tool: "submit" },
  ],
  mistakes: [
    { id: "wrong-value", atStep: 1, description: "sets 3", actions: [{ tool: "edit", path: "/workspace/a.py", old_str: "x = 1", new_str: "x = 3" }], symptom: "x is 3", failingTests: ["test_x_is_two"] },
    { id: "two-step", atStep: 2, description: "deletes then runs", actions: [{ tool: "bash", command: "rm b.py" }, { tool: "bash", command: "ls" }], symptom: "b.py missing" },
  ],
};

function asMessages(turns: PolicyTurn[]): ChatMessage[] {
  return turns.flatMap((t): ChatMessage[] => [
    { role: "assistant", content: t.message, tool_calls: [{ id: t.toolCall!.id, type: "function", function: { name: t.toolCall!.name, arguments: t.toolCall!.arguments } }] },
    { role: "tool", tool_call_id: t.toolCall!.id, content: "ok" },
  ]);
}

async function trajectory(mistakeRate: number, seed: number, prefix: ChatMessage[] = []): Promise<PolicyTurn[]> {
  const policy = createDemoPolicy({ plans: new Map([["t", plan]]), mistakeRate });
  const turns: PolicyTurn[] = [];
  for (let i = 0; i < 10; i++) {
    const turn = await policy.next({ messages: [...prefix, ...asMessages(turns)], tools: TOOL_DEFINITIONS, taskName: "t", seed });
    turns.push(turn);
    if (turn.toolCall?.name === "submit") break;
  }
  return turns;
}

describe("the demo policy", () => {
  it("follows the reference when it makes no mistakes, with real token counts", async () => {
    const turns = await trajectory(0, 1);
    expect(turns.map((t) => t.toolCall?.name)).toEqual(["view", "edit", "bash", "submit"]);
    expect(turns[0]!.message).toBe("Look at the code.");
    expect(turns[0]!.promptTokens).toBeGreaterThan(100);
    expect(turns[3]!.promptTokens).toBeGreaterThan(turns[0]!.promptTokens);
    expect(turns[0]!.completionTokens).toBeGreaterThan(5);
  });

  it("takes every mistake at rate 1 and carries on after it", async () => {
    const turns = await trajectory(1, 1);
    expect(turns.map((t) => t.toolCall?.arguments)).toEqual([
      '{"path":"/workspace/a.py"}',
      '{"path":"/workspace/a.py","old_str":"x = 1","new_str":"x = 3"}',
      '{"command":"rm b.py"}',
      '{"command":"ls"}',
      "{}",
    ]);
  });

  it("is deterministic per seed", async () => {
    expect(await trajectory(0.5, 42)).toEqual(await trajectory(0.5, 42));
  });

  it("reads its position from the context, so a branch resumed mid-way continues", async () => {
    const root = await trajectory(1, 1);
    const prefix = asMessages(root.slice(0, 1));
    expect(alignPosition(plan, prefix).step).toBe(1);
    expect(alignPosition(plan, asMessages(root.slice(0, 3)))).toMatchObject({ step: 2, mistake: { next: 1 } });
    // With guidance that names the file and the failing test, the step is the reference one, not the mistake.
    const hinted = await trajectory(1, 1, [...prefix, { role: "user", content: `${HINT_PREFIX} test_x_is_two fails (3 != 2): re-check a.py` }]);
    expect(hinted[0]!.toolCall?.arguments).toBe('{"path":"/workspace/a.py","old_str":"x = 1","new_str":"x = 2"}');
    // Guidance that does not say what failed where changes nothing: the mistake is sampled as in a root.
    const vague = await trajectory(1, 1, [...prefix, { role: "user", content: `${HINT_PREFIX} be careful this time` }]);
    expect(vague[0]!.toolCall?.arguments).toBe('{"path":"/workspace/a.py","old_str":"x = 1","new_str":"x = 3"}');
  });

  it("keeps following guidance for the rest of the branch, and only for the mistakes it addresses", async () => {
    // A reviewer's tool-call starting turn resumed at the very start: the mistake two steps later is still avoided…
    const start: ChatMessage[] = [
      { role: "assistant", content: `${HINT_PREFIX} test_x_is_two failed: check /workspace/a.py`, tool_calls: [{ id: "h", type: "function", function: { name: "view", arguments: '{"path":"/workspace/a.py"}' } }] },
      { role: "tool", tool_call_id: "h", content: "x = 1" },
    ];
    const turns = await trajectory(1, 1, start);
    expect(turns.map((t) => t.toolCall?.arguments)).toEqual([
      '{"path":"/workspace/a.py"}',
      '{"path":"/workspace/a.py","old_str":"x = 1","new_str":"x = 2"}',
      // …while the one it does not mention is made as before.
      '{"command":"rm b.py"}',
      '{"command":"ls"}',
      "{}",
    ]);
  });

  it("weighs guidance by what it names: file and failing test, file only, or neither", () => {
    const m = plan.mistakes[0]!;
    expect(guidanceAgainst(m, "test_x_is_two fails; re-check a.py")).toBe(1);
    expect(guidanceAgainst(m, "redo your edit of /workspace/a.py")).toBe(0.5);
    expect(guidanceAgainst(m, "test_x_is_two fails")).toBe(0);
    expect(guidanceAgainst(m, "")).toBe(0);
  });

  it("refuses tasks it has no plan for", async () => {
    const policy = createDemoPolicy({ plans: new Map() });
    await expect(policy.next({ messages: [], tools: TOOL_DEFINITIONS, taskName: "other", seed: 1 })).rejects.toThrow('the demo policy only knows the built-in tasks, not "other"');
  });
});
