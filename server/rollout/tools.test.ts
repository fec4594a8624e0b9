import { describe, expect, it } from "vitest";
import { parseToolCall, summarizeToolCall, toRawToolCall } from "./tools";

describe("parseToolCall", () => {
  it("accepts well-formed calls of each tool", () => {
    expect(parseToolCall({ id: "1", name: "bash", arguments: '{"command":"ls"}' })).toEqual({ ok: true, call: { tool: "bash", command: "ls" } });
    expect(parseToolCall({ id: "1", name: "submit", arguments: "" })).toEqual({ ok: true, call: { tool: "submit" } });
    const edit = { tool: "edit" as const, path: "/workspace/a.py", old_str: "a", new_str: "b" };
    expect(parseToolCall(toRawToolCall(edit, "x"))).toEqual({ ok: true, call: edit });
  });

  it("turns each kind of bad call into an error the agent can read", () => {
    expect(parseToolCall({ id: "1", name: "rm_rf", arguments: "{}" })).toEqual({
      ok: false,
      error: 'error: there is no tool "rm_rf"; the tools are bash, view, create, edit, submit',
    });
    const notJson = parseToolCall({ id: "1", name: "bash", arguments: "{command: ls" });
    expect(notJson.ok === false && notJson.error).toMatch(/^error: the arguments of bash are not valid JSON/);
    const missing = parseToolCall({ id: "1", name: "edit", arguments: '{"path":"relative.py","old_str":"a"}' });
    expect(missing.ok === false && missing.error).toMatch(/^error: invalid arguments for edit: path: must be an absolute path; new_str/);
    expect(parseToolCall({ id: "1", name: "bash", arguments: "[1]" })).toEqual({ ok: false, error: "error: the arguments of bash must be a JSON object" });
  });

  it("summarises a call in one line of at most 200 characters", () => {
    expect(summarizeToolCall({ tool: "bash", command: "cd /w &&\n  python3 -m unittest" })).toBe("cd /w && python3 -m unittest");
    expect(summarizeToolCall({ tool: "bash", command: "x".repeat(500) })).toHaveLength(200);
  });
});
