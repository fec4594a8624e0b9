import path from "node:path";
import { z } from "zod";
import type { Sandbox } from "../sandbox/types";

/**
 * The agent's tools, in the style of SWE-agent / mini-swe-agent: bash, view,
 * create, edit (str_replace) and submit. Schemas are OpenAI function definitions;
 * arguments are validated with zod, and every failure becomes an error observation
 * the agent can read, never an exception out of the rollout.
 */

export const TOOL_DEFINITIONS = [
  {
    type: "function",
    function: {
      name: "bash",
      description: "Run a bash command in the sandbox (working directory /workspace unless it cds). Output over the cap is truncated with a marker.",
      parameters: {
        type: "object",
        properties: {
          command: { type: "string", description: "The command to run." },
          timeout_sec: { type: "integer", description: "Kill the command after this many seconds (default 60, at most 600)." },
        },
        required: ["command"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "view",
      description: "Show a file with line numbers, or list a directory two levels deep.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "Absolute path." },
          view_range: { type: "array", items: { type: "integer" }, description: "Optional [first, last] line, 1-based; -1 for the end." },
        },
        required: ["path"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "create",
      description: "Create a file with the given content (parent directories are created; an existing file is overwritten).",
      parameters: {
        type: "object",
        properties: { path: { type: "string", description: "Absolute path." }, file_text: { type: "string" } },
        required: ["path", "file_text"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "edit",
      description: "Replace the one occurrence of old_str in a file with new_str. old_str must match exactly once, whitespace included.",
      parameters: {
        type: "object",
        properties: { path: { type: "string", description: "Absolute path." }, old_str: { type: "string" }, new_str: { type: "string" } },
        required: ["path", "old_str", "new_str"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "submit",
      description: "Say the task is done. The verifier then runs the hidden tests on the final state.",
      parameters: { type: "object", properties: {} },
    },
  },
] as const;

export type ToolName = (typeof TOOL_DEFINITIONS)[number]["function"]["name"];

const absolute = z.string().min(1).refine((p) => p.startsWith("/"), "must be an absolute path");

export const toolCallSchema = z.discriminatedUnion("tool", [
  z.object({ tool: z.literal("bash"), command: z.string().min(1), timeout_sec: z.number().int().positive().max(600).optional() }),
  z.object({ tool: z.literal("view"), path: absolute, view_range: z.tuple([z.number().int(), z.number().int()]).optional() }),
  z.object({ tool: z.literal("create"), path: absolute, file_text: z.string() }),
  z.object({ tool: z.literal("edit"), path: absolute, old_str: z.string().min(1), new_str: z.string() }),
  z.object({ tool: z.literal("submit") }),
]);
export type ToolCall = z.infer<typeof toolCallSchema>;

/** A tool call as the model wrote it: a name and a JSON string of arguments. */
export interface RawToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ParsedToolCall = { ok: true; call: ToolCall } | { ok: false; error: string };

export function parseToolCall(raw: RawToolCall): ParsedToolCall {
  if (!TOOL_DEFINITIONS.some((t) => t.function.name === raw.name)) {
    return { ok: false, error: `error: there is no tool "${raw.name}"; the tools are ${TOOL_DEFINITIONS.map((t) => t.function.name).join(", ")}` };
  }
  let args: unknown;
  try {
    args = raw.arguments.trim() === "" ? {} : JSON.parse(raw.arguments);
  } catch (error) {
    return { ok: false, error: `error: the arguments of ${raw.name} are not valid JSON (${(error as Error).message})` };
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { ok: false, error: `error: the arguments of ${raw.name} must be a JSON object` };
  }
  const parsed = toolCallSchema.safeParse({ ...args, tool: raw.name });
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    return { ok: false, error: `error: invalid arguments for ${raw.name}: ${detail}` };
  }
  return { ok: true, call: parsed.data };
}

/** The inverse of parseToolCall, for policies that think in ToolCall objects. */
export function toRawToolCall(call: ToolCall, id: string): RawToolCall {
  const { tool, ...args } = call;
  return { id, name: tool, arguments: JSON.stringify(args) };
}

/** The call in one line, for the tree's hover cards. */
export function summarizeToolCall(call: ToolCall): string {
  const line = (() => {
    switch (call.tool) {
      case "bash":
        return call.command;
      case "view":
        return `view ${call.path}`;
      case "create":
        return `create ${call.path} (${call.file_text.length} chars)`;
      case "edit":
        return `edit ${call.path}: ${call.old_str.split("\n")[0]} → ${call.new_str.split("\n")[0]}`;
      case "submit":
        return "submit";
    }
  })();
  const flat = line.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

export interface Observation {
  text: string;
  exitCode: number | null;
  isError: boolean;
  submitted: boolean;
  execMs: number;
}

export interface ToolLimits {
  /** Cap for what one observation keeps of a command's output. */
  maxOutputBytes: number;
  defaultTimeoutMs: number;
  workdir: string;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = { maxOutputBytes: 32 * 1024, defaultTimeoutMs: 60_000, workdir: "/workspace" };

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function truncated(text: string, wasTruncated: boolean, cap: number): string {
  return wasTruncated ? `${text}\n[output truncated: only the first ${cap} bytes are shown]` : text;
}

/** Run one tool call in the sandbox and describe what happened, as the agent will read it. */
export async function executeTool(
  sandbox: Sandbox,
  call: ToolCall,
  limits: ToolLimits = DEFAULT_TOOL_LIMITS,
  /** The caller checkpoints after the tool: its last command may hand the driver that checkpoint early. */
  { checkpointAfter = false }: { checkpointAfter?: boolean } = {},
): Promise<Observation> {
  const started = performance.now();
  const done = (text: string, exitCode: number | null, isError: boolean, submitted = false): Observation => ({
    text,
    exitCode,
    isError,
    submitted,
    execMs: Math.round(performance.now() - started),
  });
  try {
    switch (call.tool) {
      case "bash": {
        const timeoutMs = call.timeout_sec ? call.timeout_sec * 1000 : limits.defaultTimeoutMs;
        const r = await sandbox.exec(["/bin/bash", "-c", call.command], { cwd: limits.workdir, timeoutMs, maxOutputBytes: limits.maxOutputBytes, checkpointAfter });
        const parts = [truncated(r.stdout, r.stdoutTruncated, limits.maxOutputBytes)];
        if (r.stderr) parts.push(truncated(r.stderr, r.stderrTruncated, limits.maxOutputBytes));
        const body = parts.filter(Boolean).join("\n").trimEnd();
        if (r.timedOut) return done(`${body}\n[command timed out after ${timeoutMs / 1000} s and was killed]`.trim(), r.exitCode, true);
        return done(body === "" ? `(no output, exit code ${r.exitCode})` : `${body}\n(exit code ${r.exitCode})`, r.exitCode, r.exitCode !== 0);
      }
      case "view": {
        const [first, last] = call.view_range ?? [1, -1];
        const script = `if [ -d ${quote(call.path)} ]; then find ${quote(call.path)} -maxdepth 2 -not -path '*/.*' | sort; elif [ -f ${quote(call.path)} ]; then awk -v a=${first} -v b=${last} 'NR>=a && (b<0 || NR<=b) { printf "%6d\\t%s\\n", NR, $0 }' ${quote(call.path)}; else echo "error: ${call.path.replace(/["`$\\]/g, "")} does not exist" >&2; exit 1; fi`;
        const r = await sandbox.exec(["/bin/bash", "-c", script], { cwd: limits.workdir, timeoutMs: 30_000, maxOutputBytes: limits.maxOutputBytes, checkpointAfter });
        if (r.exitCode !== 0) return done(r.stderr.trim() || `error: cannot view ${call.path}`, r.exitCode, true);
        return done(truncated(r.stdout, r.stdoutTruncated, limits.maxOutputBytes).trimEnd() || "(empty file)", 0, false);
      }
      case "create": {
        await sandbox.exec(["mkdir", "-p", path.posix.dirname(call.path)], { timeoutMs: 10_000 });
        await sandbox.writeFile(call.path, call.file_text, { checkpointAfter });
        return done(`created ${call.path} (${Buffer.byteLength(call.file_text)} bytes)`, 0, false);
      }
      case "edit": {
        let content: string;
        try {
          content = (await sandbox.readFile(call.path)).toString("utf8");
        } catch {
          return done(`error: ${call.path} does not exist`, null, true);
        }
        const count = content.split(call.old_str).length - 1;
        if (count === 0) return done(`error: old_str was not found in ${call.path}; nothing changed`, null, true);
        if (count > 1) return done(`error: old_str occurs ${count} times in ${call.path}; make it unique. Nothing changed`, null, true);
        const at = content.indexOf(call.old_str);
        const next = content.slice(0, at) + call.new_str + content.slice(at + call.old_str.length);
        await sandbox.writeFile(call.path, next, { checkpointAfter });
        const line = content.slice(0, at).split("\n").length;
        const shown = next.split("\n").slice(Math.max(0, line - 3), line + call.new_str.split("\n").length + 2);
        return done(`edited ${call.path}; lines around the change:\n${shown.map((l, i) => `${String(Math.max(1, line - 2) + i).padStart(6)}\t${l}`).join("\n")}`, 0, false);
      }
      case "submit":
        return done("submitted", 0, false, true);
    }
  } catch (error) {
    return done(`error: the ${call.tool} tool failed: ${error instanceof Error ? error.message : String(error)}`, null, true);
  }
}
