/**
 * Reads the built-in task suite (Harbor / Terminal-Bench 2 layout plus sprout.json)
 * from server/tasks/builtin/<task-name>/.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { SproutTaskFileSchema, TaskTomlSchema, type Mistake, type ToolCall } from "./schema";

export interface BuiltinTask {
  name: string;
  title: string;
  instruction: string;
  difficulty: "easy" | "medium" | "hard";
  category: string;
  tags: string[];
  referenceSteps: ToolCall[];
  mistakes: Mistake[];
  /** Host directory whose contents become /workspace in the sandbox. */
  workspaceDir: string;
  /** Host directory copied to /tests at verification time only. */
  testsDir: string;
  solutionPath: string;
  agentTimeoutMs: number;
  verifier: { command: "bash /tests/test.sh"; timeoutMs: number };
}

/**
 * Not derived from import.meta.url: Next.js bundles server code so the module's URL
 * points into .next/; the server always runs from the repo root.
 */
export function builtinSuiteDir(): string {
  return path.join(process.cwd(), "server/tasks/builtin");
}

type TomlValue = string | number | boolean | string[];
export type TomlTable = Record<string, TomlValue | Record<string, TomlValue>>;

/**
 * A deliberately tiny TOML reader: [section] headers, and key = value with a basic
 * string, number, boolean or one-line array of strings. No TOML package is installed
 * and our task.toml files need no more; anything else is rejected loudly rather than
 * misread.
 */
export function parseTinyToml(text: string, source = "task.toml"): TomlTable {
  const root: TomlTable = {};
  let table: Record<string, TomlValue> | TomlTable = root;
  text.split(/\r?\n/).forEach((raw, i) => {
    const where = `${source}:${i + 1}`;
    const line = stripComment(raw).trim();
    if (line === "") return;
    const header = /^\[([A-Za-z0-9_.-]+)\]$/.exec(line);
    if (header) {
      const name = header[1] ?? "";
      if (name in root) throw new Error(`${where}: duplicate table [${name}]`);
      const t: Record<string, TomlValue> = {};
      root[name] = t;
      table = t;
      return;
    }
    const kv = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    if (!kv) throw new Error(`${where}: cannot parse line: ${raw}`);
    const key = kv[1] ?? "";
    if (key in table) throw new Error(`${where}: duplicate key ${key}`);
    (table as Record<string, TomlValue>)[key] = parseValue(kv[2] ?? "", where);
  });
  return root;
}

/** Drops a trailing # comment, but not a # inside a string. */
function stripComment(line: string): string {
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "\\" && inString) i++;
    else if (c === '"') inString = !inString;
    else if (c === "#" && !inString) return line.slice(0, i);
  }
  return line;
}

function parseValue(src: string, where: string): TomlValue {
  const v = src.trim();
  if (v.startsWith('"')) return parseString(v, where);
  if (v === "true" || v === "false") return v === "true";
  if (/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(v.replaceAll("_", ""))) return Number(v.replaceAll("_", ""));
  if (v.startsWith("[") && v.endsWith("]")) {
    const inner = v.slice(1, -1).trim();
    if (inner === "") return [];
    const items: string[] = [];
    const re = /\s*("(?:[^"\\]|\\.)*")\s*(,|$)/gy;
    let m: RegExpExecArray | null;
    let consumed = 0;
    while (consumed < inner.length && (m = re.exec(inner)) !== null) {
      items.push(parseString(m[1] ?? "", where));
      consumed = re.lastIndex;
    }
    if (consumed !== inner.length) throw new Error(`${where}: only one-line arrays of strings are supported: ${v}`);
    return items;
  }
  throw new Error(`${where}: unsupported value: ${v}`);
}

function parseString(v: string, where: string): string {
  if (!/^"(?:[^"\\]|\\.)*"$/.test(v)) throw new Error(`${where}: bad string: ${v}`);
  // TOML basic strings share JSON's escapes for everything our files use.
  return JSON.parse(v) as string;
}

function titleOf(instruction: string, fallback: string): string {
  const heading = /^#\s+(.+)$/m.exec(instruction);
  return heading?.[1]?.trim() ?? fallback;
}

async function isFile(p: string): Promise<boolean> {
  return fs.stat(p).then((s) => s.isFile(), () => false);
}

export async function loadBuiltinTask(taskDir: string): Promise<BuiltinTask> {
  const name = path.basename(taskDir);
  const [tomlText, instruction, sproutText] = await Promise.all([
    fs.readFile(path.join(taskDir, "task.toml"), "utf8"),
    fs.readFile(path.join(taskDir, "instruction.md"), "utf8"),
    fs.readFile(path.join(taskDir, "sprout.json"), "utf8"),
  ]);
  const toml = TaskTomlSchema.parse(parseTinyToml(tomlText, `${name}/task.toml`));
  const sprout = SproutTaskFileSchema.parse(JSON.parse(sproutText));
  const workspaceDir = path.join(taskDir, "environment/workspace");
  const testsDir = path.join(taskDir, "tests");
  const solutionPath = path.join(taskDir, "solution/solve.sh");
  for (const required of [path.join(testsDir, "test.sh"), solutionPath]) {
    if (!(await isFile(required))) throw new Error(`${name}: missing ${path.relative(taskDir, required)}`);
  }
  if (!(await fs.stat(workspaceDir).then((s) => s.isDirectory(), () => false))) {
    throw new Error(`${name}: missing environment/workspace/`);
  }
  return {
    name,
    title: titleOf(instruction, name),
    instruction,
    difficulty: toml.metadata.difficulty,
    category: toml.metadata.category,
    tags: toml.metadata.tags,
    referenceSteps: sprout.reference,
    mistakes: sprout.mistakes,
    workspaceDir,
    testsDir,
    solutionPath,
    agentTimeoutMs: Math.round(toml.agent.timeout_sec * 1000),
    verifier: { command: "bash /tests/test.sh", timeoutMs: Math.round(toml.verifier.timeout_sec * 1000) },
  };
}

/** Every directory with a task.toml is a task; other entries (schema, tests) are skipped. */
export async function loadBuiltinSuite(dir: string = builtinSuiteDir()): Promise<BuiltinTask[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const taskDirs: string[] = [];
  for (const e of entries) {
    if (e.isDirectory() && (await isFile(path.join(dir, e.name, "task.toml")))) taskDirs.push(path.join(dir, e.name));
  }
  taskDirs.sort();
  return Promise.all(taskDirs.map((d) => loadBuiltinTask(d)));
}
