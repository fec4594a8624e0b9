/**
 * Imports a task in the Harbor / Terminal-Bench 2 layout:
 *
 *   instruction.md  task.toml  environment/Dockerfile (+ build context)  tests/test.sh  [solution/solve.sh]
 *
 * Everything is read and checked before anything is written, so a bad directory leaves the data
 * dir and the database as they were. The directory is then copied into the data dir, because
 * rollouts read the COPY sources and tests/ long after the import and the source may move.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { parse as parseToml, TomlError } from "smol-toml";
import { z } from "zod";
import { env } from "../../config/env";
import type { SandboxBase } from "../../sandbox/types";
import type { EnvironmentSpec } from "../task-spec";
import { listTasks, upsertTask, type Task } from "../task-store";
import { DockerfileSyntaxError, parseDockerfile, shellQuote, type ParsedDockerfile } from "./parse-dockerfile";

/** A task directory that cannot be imported; the message names the file and what is wrong with it. */
export class HarborTaskError extends Error {
  override name = "HarborTaskError";
}

/** Harbor's own verifier default when task.toml does not say (harbor.models.task.config.VerifierConfig). */
const DEFAULT_VERIFIER_TIMEOUT_SEC = 600;

/** Where ADDed archives wait to be unpacked; removed again once the last one is. */
const STAGING = "/.sprout-import";

const stringMap = z.record(z.string(), z.string());

/**
 * The parts of Harbor's task.toml the importer uses. Loose objects: Harbor has more settings
 * (resources, network, MCP servers) that a sandbox does not model, and they must not fail an import.
 */
const taskTomlSchema = z.looseObject({
  task: z.looseObject({ name: z.string().min(1), description: z.string().optional() }).optional(),
  metadata: z
    .looseObject({
      name: z.string().min(1).optional(),
      title: z.string().min(1).optional(),
      difficulty: z.string().min(1).optional(),
      category: z.string().min(1).optional(),
      tags: z.array(z.string()).optional(),
    })
    .prefault({}),
  verifier: z.looseObject({ timeout_sec: z.number().positive().default(DEFAULT_VERIFIER_TIMEOUT_SEC), env: stringMap.default({}) }).prefault({}),
  agent: z.looseObject({ timeout_sec: z.number().positive().optional() }).prefault({}),
  solution: z.looseObject({ env: stringMap.default({}) }).prefault({}),
  environment: z.looseObject({ docker_image: z.string().min(1).optional() }).prefault({}),
});
type TaskToml = z.infer<typeof taskTomlSchema>;

/** What an imported task keeps in `Task.metadata`; check-solution reads it back through this schema. */
export const harborTaskMetadata = z.looseObject({
  importedFrom: z.string(),
  /** the task's copy in the data dir */
  taskDir: z.string(),
  difficulty: z.string().nullable(),
  category: z.string().nullable(),
  tags: z.array(z.string()),
  /** solution/solve.sh in the copy, null when the task ships no solution */
  solutionPath: z.string().nullable(),
  solutionEnv: stringMap,
  /** the Dockerfile's FROM, kept even when the environment runs on another base */
  dockerBase: z.string(),
  agentTimeoutMs: z.number().nullable(),
  importWarnings: z.array(z.string()),
});
export type HarborTaskMetadata = z.infer<typeof harborTaskMetadata>;

export interface ImportHarborTaskOptions {
  /** Run on this base instead of the Dockerfile's FROM image (e.g. the host for the local driver, or a rootfs). */
  baseOverride?: SandboxBase;
}

/** A task name as the database and URLs want it: "Hello_API" -> "hello-api", "org/name" -> "org-name". */
export function kebabName(raw: string): string {
  return raw
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** Harbor strips leading canary lines (data-provenance markers) so agents never see them; so do we. */
function stripCanary(text: string): string {
  const lines = text.split("\n");
  let i = 0;
  while (i < lines.length && /^(<!--.*canary.*-->|#.*canary.*)$/i.test((lines[i] ?? "").trim())) i++;
  if (i > 0) while (i < lines.length && (lines[i] ?? "").trim() === "") i++;
  return lines.slice(i).join("\n");
}

function titleOf(instruction: string, fallback: string): string {
  const heading = /^#{1,6}\s+(.+)$/m.exec(instruction)?.[1];
  const firstLine = instruction.split("\n").find((l) => l.trim() !== "");
  const title = (heading ?? firstLine ?? fallback).replace(/[*_`]/g, "").trim();
  return title.length > 80 ? `${title.slice(0, 79)}…` : title;
}

async function readRequired(dir: string, rel: string, what: string): Promise<string> {
  try {
    return await fs.readFile(path.join(dir, rel), "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new HarborTaskError(`${dir}: missing ${rel} (${what})`);
    if (code === "EISDIR") throw new HarborTaskError(`${dir}: ${rel} is a directory, not a file (${what})`);
    throw new HarborTaskError(`${dir}: cannot read ${rel}: ${(error as Error).message}`);
  }
}

async function isFile(p: string): Promise<boolean> {
  return fs.stat(p).then((s) => s.isFile(), () => false);
}

function parseTaskToml(text: string): TaskToml {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    if (error instanceof TomlError) {
      const reason = (error.message.split("\n")[0] ?? "").replace(/^Invalid TOML document:\s*/, "");
      throw new HarborTaskError(`task.toml: invalid TOML at line ${error.line}, column ${error.column}: ${reason}`);
    }
    throw error;
  }
  const result = taskTomlSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "(top level)"}: ${i.message}`);
    throw new HarborTaskError(`task.toml: ${problems.join("; ")}`);
  }
  return result.data;
}

/** A glob in the last path segment only (`*.py`, `data/file?.json`): what task Dockerfiles use. */
async function expandSource(contextDir: string, source: string): Promise<string[]> {
  if (!/[*?[]/.test(source)) return (await fs.stat(path.join(contextDir, source)).then(() => true, () => false)) ? [source] : [];
  const dir = path.posix.dirname(source);
  if (/[*?[]/.test(dir)) throw new HarborTaskError(`environment/Dockerfile: COPY source ${source}: globs are supported in the last path segment only`);
  const pattern = new RegExp(
    `^${path.posix
      .basename(source)
      .replace(/[.+^${}()|\\]/g, "\\$&")
      .replaceAll("*", "[^/]*")
      .replaceAll("?", "[^/]")}$`,
  );
  const entries = await fs.readdir(path.join(contextDir, dir)).catch(() => [] as string[]);
  return entries.filter((e) => pattern.test(e)).sort().map((e) => path.posix.join(dir, e));
}

/**
 * The Dockerfile as an environment spec over `contextDir` (where COPY sources will be read from
 * at run time). The spec applies every copy before every setup command, so ordering is only
 * approximated when a COPY follows a RUN; that is said in a warning.
 */
async function toEnvironment(parsed: ParsedDockerfile, sourceContext: string, runContext: string, base: SandboxBase, warnings: string[]): Promise<EnvironmentSpec> {
  const workdir = parsed.workdir ?? "/";
  if (parsed.workdir === null) warnings.push("environment/Dockerfile sets no WORKDIR: the agent starts in /");
  const copies: EnvironmentSpec["copies"] = [];
  const setup: string[] = [];
  let firstRun: number | null = null;
  for (const step of parsed.steps) {
    if (step.kind === "run") {
      firstRun ??= step.line;
      // What this RUN saw that the final image's ENV does not give it: ARGs, and ENV values changed later.
      const exports = Object.entries(step.env).filter(([k, v]) => parsed.env[k] !== v);
      const prefix = [
        exports.length > 0 ? `export ${exports.map(([k, v]) => `${k}=${shellQuote(v)}`).join(" ")}` : null,
        step.workdir !== workdir ? `mkdir -p ${shellQuote(step.workdir)} && cd ${shellQuote(step.workdir)}` : null,
      ].filter((p): p is string => p !== null);
      setup.push(prefix.length > 0 ? `${prefix.join(" && ")} && ${step.command}` : step.command);
      continue;
    }
    const matches = await expandSource(sourceContext, step.source);
    if (matches.length === 0) throw new HarborTaskError(`environment/Dockerfile line ${step.line}: COPY source ${step.source} does not exist in environment/`);
    if (firstRun !== null) warnings.push(`environment/Dockerfile line ${step.line}: this COPY follows the RUN at line ${firstRun}; copies are applied before all RUN commands`);
    for (const match of matches) {
      const from = path.join(runContext, match);
      if (!step.extract) {
        copies.push({ from, to: step.dest });
        continue;
      }
      // ADD unpacks a local archive: stage it, and unpack it in order with the RUN commands.
      const staged = `${STAGING}/${step.line}-${copies.length}/${path.posix.basename(match)}`;
      copies.push({ from, to: staged });
      const into = step.dest.replace(/(.)\/$/, "$1");
      setup.push(`mkdir -p ${shellQuote(into)} && tar -xf ${shellQuote(staged)} -C ${shellQuote(into)} && rm -rf ${shellQuote(path.posix.dirname(staged))} && { rmdir ${STAGING} 2>/dev/null || true; }`);
    }
  }
  return { base, setup, workdir, copies, env: parsed.env };
}

/** Copy the task into the data dir beside any earlier import of it; returns how to keep or undo the swap. */
async function storeCopy(source: string, dest: string): Promise<{ commit: () => Promise<void>; rollback: () => Promise<void> }> {
  const noop = { commit: async () => {}, rollback: async () => {} };
  if (source === dest) return noop;
  if (dest.startsWith(`${source}${path.sep}`)) throw new HarborTaskError(`${source}: the data dir ${dest} is inside the task directory; move the task elsewhere`);
  const parent = path.dirname(dest);
  await fs.mkdir(parent, { recursive: true });
  const suffix = `${path.basename(dest)}-${randomBytes(4).toString("hex")}`;
  const incoming = path.join(parent, `.incoming-${suffix}`);
  const previous = path.join(parent, `.previous-${suffix}`);
  try {
    await fs.cp(source, incoming, { recursive: true, verbatimSymlinks: true });
  } catch (error) {
    await fs.rm(incoming, { recursive: true, force: true });
    throw error;
  }
  const hadPrevious = await fs.rename(dest, previous).then(() => true, (e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? false : Promise.reject(e)));
  await fs.rename(incoming, dest);
  return {
    commit: () => fs.rm(previous, { recursive: true, force: true }),
    rollback: async () => {
      await fs.rm(dest, { recursive: true, force: true });
      if (hadPrevious) await fs.rename(previous, dest);
    },
  };
}

/**
 * Read, check and import a Harbor task directory: the copy lands in `<dataDir>/tasks/<name>/`,
 * the task is created or updated by name (source "imported"). Throws HarborTaskError, before
 * writing anything, when a file is missing or malformed.
 */
export async function importHarborTask(dir: string, options: ImportHarborTaskOptions = {}): Promise<{ task: Task; warnings: string[] }> {
  const source = path.resolve(dir);
  const stat = await fs.stat(source).catch(() => null);
  if (!stat?.isDirectory()) throw new HarborTaskError(`${source}: not a directory`);

  const [instructionText, tomlText, dockerfileText] = await Promise.all([
    readRequired(source, "instruction.md", "the task's instruction to the agent"),
    readRequired(source, "task.toml", "the task's configuration"),
    readRequired(source, "environment/Dockerfile", "the task's environment"),
  ]);
  if (!(await isFile(path.join(source, "tests/test.sh")))) throw new HarborTaskError(`${source}: missing tests/test.sh (the verifier's entry point)`);
  const instruction = stripCanary(instructionText).trim();
  if (instruction === "") throw new HarborTaskError(`${source}: instruction.md is empty`);
  const toml = parseTaskToml(tomlText);
  let parsed: ParsedDockerfile;
  try {
    parsed = parseDockerfile(dockerfileText);
  } catch (error) {
    if (error instanceof DockerfileSyntaxError) throw new HarborTaskError(`environment/Dockerfile: ${error.message}`);
    throw error;
  }

  const name = kebabName(toml.task?.name ?? toml.metadata.name ?? path.basename(source));
  if (name === "") throw new HarborTaskError(`${source}: no usable task name; set [metadata] name in task.toml`);
  const clash = (await listTasks()).find((t) => t.name === name && t.source !== "imported");
  if (clash) throw new HarborTaskError(`a ${clash.source} task is already named ${name}; set another [metadata] name in task.toml`);

  const warnings = parsed.warnings.map((w) => (w.startsWith("line ") ? `environment/Dockerfile ${w}` : `environment/Dockerfile: ${w}`));
  if (toml.environment.docker_image) warnings.push(`task.toml [environment] docker_image = ${toml.environment.docker_image} is not used: the environment is rebuilt from environment/Dockerfile`);
  if (await isFile(path.join(source, "environment/.dockerignore"))) warnings.push("environment/.dockerignore is not applied: COPY sources are copied whole");
  if (await fs.stat(path.join(source, "environment/docker-compose.yaml")).then(() => true, () => false)) {
    warnings.push("environment/docker-compose.yaml is not supported: only the main container's Dockerfile is imported");
  }

  const taskDir = path.join(env().dataDir, "tasks", name);
  const base: SandboxBase = options.baseOverride ?? { kind: "image", ref: parsed.baseImage };
  const environment = await toEnvironment(parsed, path.join(source, "environment"), path.join(taskDir, "environment"), base, warnings);

  // Harbor resolves ${VAR} in verifier env from the host; copying host values into a task would leak them.
  const verifierEnv = Object.entries(toml.verifier.env).filter(([k, v]) => {
    if (!v.includes("${")) return true;
    warnings.push(`task.toml [verifier] env ${k} refers to a host variable and is left unset`);
    return false;
  });
  const command = [...verifierEnv.map(([k, v]) => `${k}=${shellQuote(v)}`), "bash /tests/test.sh"].join(" ");
  const hasSolution = await isFile(path.join(source, "solution/solve.sh"));
  if (!hasSolution) warnings.push("no solution/solve.sh: the task cannot be checked end to end");

  const metadata: HarborTaskMetadata = {
    importedFrom: source,
    taskDir,
    difficulty: toml.metadata.difficulty ?? null,
    category: toml.metadata.category ?? null,
    tags: toml.metadata.tags ?? [],
    solutionPath: hasSolution ? path.join(taskDir, "solution/solve.sh") : null,
    solutionEnv: toml.solution.env,
    dockerBase: parsed.baseImage,
    agentTimeoutMs: toml.agent.timeout_sec === undefined ? null : Math.round(toml.agent.timeout_sec * 1000),
    importWarnings: warnings,
  };

  const stored = await storeCopy(source, taskDir);
  try {
    const task = await upsertTask({
      name,
      title: toml.metadata.title ?? titleOf(instruction, name),
      instruction,
      source: "imported",
      environment,
      verifier: { command, timeoutMs: Math.round(toml.verifier.timeout_sec * 1000), format: "exit-code", testsDir: path.join(taskDir, "tests") },
      metadata,
    });
    await stored.commit();
    return { task, warnings };
  } catch (error) {
    await stored.rollback();
    throw error;
  }
}
