/** A tool call as the inspector shows it: its name and its arguments as readable text. */
export interface ShownToolCall {
  name: string;
  args: string;
}

/** Arguments arrive as an object or, in OpenAI form, as a JSON string; either way they are pretty-printed. */
export function showToolCall(call: unknown): ShownToolCall | null {
  if (call === null || call === undefined) return null;
  if (typeof call !== "object") return { name: "call", args: JSON.stringify(call) };
  const c = call as { name?: unknown; arguments?: unknown; function?: { name?: unknown; arguments?: unknown } };
  const rawName = c.name ?? c.function?.name;
  const name = typeof rawName === "string" ? rawName : "call";
  let args: unknown = c.arguments ?? c.function?.arguments ?? {};
  if (typeof args === "string") {
    try {
      args = JSON.parse(args) as unknown;
    } catch {
      return { name, args: args as string };
    }
  }
  return { name, args: JSON.stringify(args, null, 2) };
}
