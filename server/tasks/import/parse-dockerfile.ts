/**
 * The subset of Dockerfile syntax that Harbor / Terminal-Bench task environments use, read into
 * what a sandbox can replay without a registry or a build: the base image, the final WORKDIR and
 * ENV, and the COPY/ADD and RUN steps in file order. Anything it cannot replay becomes a warning,
 * never a silent drop. Pure: no file system, so the importer decides what exists.
 */
import path from "node:path";

/** A local file or directory copied into the image (one per source of a COPY/ADD line). */
export interface DockerfileCopy {
  kind: "copy";
  line: number;
  /** relative to the build context (environment/), as written after variable substitution; may hold a glob */
  source: string;
  /** absolute; ends with "/" when it names a directory the source goes into (Docker's rule for `dest/`, `.` and several sources) */
  dest: string;
  /** ADD of a local tar archive: Docker unpacks it into dest instead of copying it */
  extract: boolean;
}

/** A RUN line, with what it saw when it ran (later WORKDIR/ENV/ARG lines do not apply to it). */
export interface DockerfileRun {
  kind: "run";
  line: number;
  /** a shell command; exec form is quoted into one */
  command: string;
  workdir: string;
  /** ARG values in scope and ENV at that point: the build environment of this command */
  env: Record<string, string>;
}

export type DockerfileStep = DockerfileCopy | DockerfileRun;

export interface ParsedDockerfile {
  /** The final stage's base image, ARGs substituted (e.g. "ubuntu:24.04"). */
  baseImage: string;
  /** The last WORKDIR, or null when the file sets none (Docker then starts in "/"). */
  workdir: string | null;
  /** ENV of the final image. */
  env: Record<string, string>;
  steps: DockerfileStep[];
  warnings: string[];
}

/** Thrown for a file that cannot be read as a Dockerfile at all (no FROM, an instruction without its arguments). */
export class DockerfileSyntaxError extends Error {
  override name = "DockerfileSyntaxError";
}

/** `$PATH` in an ENV line refers to the base image's PATH, which we cannot read: assume the usual Debian/Ubuntu one. */
const BASE_IMAGE_ENV: Readonly<Record<string, string>> = { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" };

/** Instructions that change neither files nor commands: nothing to replay, nothing to warn about. */
const INERT = new Set(["EXPOSE", "LABEL", "MAINTAINER", "STOPSIGNAL"]);

/** Instructions we understand but cannot replay, and why that may matter to a task. */
const IGNORED: Readonly<Record<string, string>> = {
  CMD: "the sandbox starts no main process; a service the tests need must be started by the task's own scripts",
  ENTRYPOINT: "the sandbox starts no main process; a service the tests need must be started by the task's own scripts",
  HEALTHCHECK: "the sandbox starts no main process to check",
  USER: "commands run as root in the sandbox",
  VOLUME: "the sandbox has one filesystem; the path stays part of it",
  ONBUILD: "it only applies to images built FROM this one",
};

const ARCHIVE = /\.(tar|tar\.gz|tgz|tar\.bz2|tbz2?|tar\.xz|txz|tar\.zst)$/i;

interface StageState {
  name: string | null;
  baseImage: string;
  workdir: string | null;
  env: Record<string, string>;
  args: Record<string, string>;
  steps: DockerfileStep[];
  line: number;
}

interface Instruction {
  keyword: string;
  /** the arguments, continuation lines joined, heredoc bodies appended after a newline */
  rest: string;
  line: number;
  heredocs: { word: string; body: string }[];
}

/** Shell-style quoting for a replayed command: single quotes survive everything but a single quote. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Split the file into logical instructions: comments and blank lines dropped, line continuations
 * joined as Docker does (the escape character and newline vanish, nothing else), heredoc bodies
 * (`<<EOF` … `EOF`, BuildKit) consumed with their instruction.
 */
function readInstructions(text: string): { instructions: Instruction[]; escape: string } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  let escape = "\\";
  let i = 0;
  // Parser directives only count at the very top, before any blank line, comment or instruction.
  for (; i < lines.length; i++) {
    const d = /^#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*$/.exec(lines[i] ?? "");
    if (!d || !["syntax", "escape", "check"].includes(d[1]!.toLowerCase())) break;
    if (d[1]!.toLowerCase() === "escape") escape = d[2] === "`" ? "`" : "\\";
  }
  const instructions: Instruction[] = [];
  while (i < lines.length) {
    const first = lines[i] ?? "";
    const start = i + 1;
    i++;
    if (/^\s*(#.*)?$/.test(first)) continue;
    let logical = "";
    let current = first;
    for (;;) {
      const trimmed = current.replace(/\s+$/, "");
      if (!trimmed.endsWith(escape)) {
        logical += current;
        break;
      }
      logical += trimmed.slice(0, -1);
      // Inside a continuation Docker skips comment lines and empty lines rather than ending the instruction.
      while (i < lines.length && /^\s*(#.*)?$/.test(lines[i] ?? "")) i++;
      if (i >= lines.length) break;
      current = lines[i] ?? "";
      i++;
    }
    const m = /^\s*([A-Za-z]+)(?:\s+([\s\S]*))?$/.exec(logical);
    if (!m) throw new DockerfileSyntaxError(`line ${start}: cannot read "${logical.trim().slice(0, 80)}" as an instruction`);
    const keyword = m[1]!.toUpperCase();
    const rest = (m[2] ?? "").trim();
    const heredocs: { word: string; body: string }[] = [];
    if (["RUN", "COPY", "ADD"].includes(keyword)) {
      for (const h of rest.matchAll(/<<(-?)(["']?)([A-Za-z_][A-Za-z0-9_]*)\2/g)) {
        const word = h[3]!;
        const body: string[] = [];
        while (i < lines.length) {
          const l = lines[i] ?? "";
          i++;
          if ((h[1] ? l.replace(/^\t+/, "") : l) === word) break;
          body.push(l);
        }
        heredocs.push({ word, body: body.join("\n") });
      }
    }
    instructions.push({ keyword, rest, line: start, heredocs });
  }
  return { instructions, escape };
}

interface LexResult {
  words: string[];
  unknown: string[];
}

/**
 * Docker's word processing for FROM/ENV/ARG/WORKDIR/COPY/ADD: quotes removed, escapes applied,
 * `$VAR`, `${VAR}`, `${VAR:-word}` and `${VAR:+word}` substituted (not inside single quotes).
 * With `split` false the whole text is one word with its spaces (ENV's legacy `ENV KEY value` form).
 */
function lex(text: string, vars: Readonly<Record<string, string>>, escape: string, split = true): LexResult {
  const words: string[] = [];
  const unknown: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  const lookup = (name: string): string | undefined => vars[name];
  const substitute = (): string => {
    // at text[i] === "$"
    const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])((?:[^}\\]|\\.)*))?\}/.exec(text.slice(i));
    if (braced) {
      i += braced[0].length;
      const value = lookup(braced[1]!);
      const op = braced[2];
      const alt = braced[3] === undefined ? "" : lex(braced[3], vars, escape, false).words[0] ?? "";
      if (op === ":-") return value ? value : alt;
      if (op === "-") return value ?? alt;
      if (op === ":+") return value ? alt : "";
      if (op === "+") return value === undefined ? "" : alt;
      if (value === undefined) unknown.push(braced[1]!);
      return value ?? "";
    }
    const plain = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(i));
    if (plain) {
      i += plain[0].length;
      const value = lookup(plain[1]!);
      if (value === undefined) unknown.push(plain[1]!);
      return value ?? "";
    }
    i++;
    return "$";
  };
  while (i < text.length) {
    const c = text[i]!;
    if (split && /\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (c === escape && i + 1 < text.length) {
      word += text[i + 1];
      i += 2;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      const stop = end < 0 ? text.length : end;
      word += text.slice(i + 1, stop);
      i = stop + 1;
    } else if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        const d = text[i]!;
        if (d === escape && ['"', "$", escape].includes(text[i + 1] ?? "")) {
          word += text[i + 1];
          i += 2;
        } else if (d === "$") word += substitute();
        else {
          word += d;
          i++;
        }
      }
      i++;
    } else if (c === "$") word += substitute();
    else {
      word += c;
      i++;
    }
  }
  if (inWord) words.push(word);
  return { words, unknown };
}

/** `["a", "b"]` (exec/JSON form) as its strings, or null when the text is not such an array. */
function jsonArray(text: string): string[] | null {
  if (!text.startsWith("[")) return null;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((v): v is string => typeof v === "string") ? value : null;
  } catch {
    return null;
  }
}

/** Parse a Dockerfile's text. Throws DockerfileSyntaxError only when there is no usable FROM. */
export function parseDockerfile(text: string): ParsedDockerfile {
  const { instructions, escape } = readInstructions(text);
  const warnings: string[] = [];
  const globalArgs: Record<string, string> = {};
  const stages: StageState[] = [];
  let stage: StageState | null = null;

  const warnUnknown = (line: number, unknown: string[]) => {
    for (const name of new Set(unknown)) warnings.push(`line ${line}: $${name} is not set by the Dockerfile; it was replaced by an empty string`);
  };

  for (const ins of instructions) {
    const { keyword, rest, line } = ins;
    const at = `line ${line}`;
    if (keyword !== "FROM" && keyword !== "ARG" && !stage) throw new DockerfileSyntaxError(`${at}: ${keyword} before the first FROM`);

    if (keyword === "FROM") {
      // Flags (--platform=$BUILDPLATFORM) are dropped before substitution: they do not change the filesystem.
      const { words: args, unknown } = lex(rest.replace(/^(--\S+\s+)+/, ""), globalArgs, escape);
      warnUnknown(line, unknown);
      const image = args[0];
      if (!image) throw new DockerfileSyntaxError(`${at}: FROM needs an image`);
      const name = args.length >= 3 && args[1]!.toLowerCase() === "as" ? args[2]!.toLowerCase() : null;
      const parent = stages.find((s) => s.name !== null && s.name === image.toLowerCase());
      stage = parent
        ? { ...parent, name, env: { ...parent.env }, args: {}, steps: [...parent.steps], line }
        : { name, baseImage: image, workdir: null, env: {}, args: {}, steps: [], line };
      stages.push(stage);
      continue;
    }
    if (keyword === "ARG") {
      const scope = stage ? { ...BASE_IMAGE_ENV, ...globalArgs, ...stage.args, ...stage.env } : globalArgs;
      const { words, unknown } = lex(rest, scope, escape);
      warnUnknown(line, unknown);
      if (words.length === 0) throw new DockerfileSyntaxError(`${at}: ARG needs a name`);
      for (const w of words) {
        const eq = w.indexOf("=");
        const name = eq < 0 ? w : w.slice(0, eq);
        // A bare ARG inside a stage re-declares a global one and takes its default, as Docker does.
        const value = eq < 0 ? (stage ? globalArgs[name] : undefined) : w.slice(eq + 1);
        if (value === undefined) {
          warnings.push(`${at}: ARG ${name} has no default and build arguments are not supported; it is empty`);
        }
        (stage ? stage.args : globalArgs)[name] = value ?? "";
      }
      continue;
    }
    const s = stage!;
    // ENV overrides ARG of the same name; the base image's own variables come first.
    const vars = { ...BASE_IMAGE_ENV, ...s.args, ...s.env };
    const workdirNow = s.workdir ?? "/";
    switch (keyword) {
      case "ENV": {
        const firstRaw = /^\S+/.exec(rest)?.[0] ?? "";
        if (firstRaw === "") throw new DockerfileSyntaxError(`${at}: ENV needs a name and a value`);
        if (!firstRaw.includes("=")) {
          // Legacy `ENV KEY value with spaces`: one variable, the rest of the line is its value.
          const value = lex(rest.slice(firstRaw.length).trim(), vars, escape, false);
          warnUnknown(line, value.unknown);
          s.env[firstRaw] = value.words[0] ?? "";
          break;
        }
        // Every KEY=value pair sees the variables as they were before this line (Docker substitutes per instruction).
        const { words, unknown } = lex(rest, vars, escape);
        warnUnknown(line, unknown);
        for (const w of words) {
          const eq = w.indexOf("=");
          if (eq <= 0) throw new DockerfileSyntaxError(`${at}: ENV expects KEY=value pairs, got "${w}"`);
          s.env[w.slice(0, eq)] = w.slice(eq + 1);
        }
        break;
      }
      case "WORKDIR": {
        const { words, unknown } = lex(rest, vars, escape, false);
        warnUnknown(line, unknown);
        const dir = words[0];
        if (!dir) throw new DockerfileSyntaxError(`${at}: WORKDIR needs a path`);
        s.workdir = path.posix.resolve(workdirNow, dir);
        break;
      }
      case "COPY":
      case "ADD": {
        if (ins.heredocs.length > 0) {
          warnings.push(`${at}: ${keyword} with a heredoc is not supported; skipped`);
          break;
        }
        const json = jsonArray(rest);
        const lexed = json ? { words: json, unknown: [] } : lex(rest, vars, escape);
        warnUnknown(line, lexed.unknown);
        const flags = lexed.words.filter((w) => w.startsWith("--"));
        const args = lexed.words.filter((w) => !w.startsWith("--"));
        if (flags.some((f) => f.startsWith("--from"))) {
          warnings.push(`${at}: ${keyword} ${flags.find((f) => f.startsWith("--from"))} copies from another image or stage, which is not supported; skipped`);
          break;
        }
        for (const f of flags) {
          const flag = f.split("=")[0];
          if (flag === "--chown" || flag === "--chmod") warnings.push(`${at}: ${keyword} ${flag} ignored: files keep their modes from the task directory and belong to root`);
          else if (flag !== "--link") warnings.push(`${at}: ${keyword} ${flag} ignored`);
        }
        if (args.length < 2) throw new DockerfileSyntaxError(`${at}: ${keyword} needs a source and a destination`);
        const sources = args.slice(0, -1);
        const rawDest = args.at(-1)!;
        const several = sources.length > 1 || sources.some((src) => /[*?[]/.test(src));
        const intoDir = several || rawDest.endsWith("/") || rawDest === "." || rawDest.endsWith("/.");
        const resolved = path.posix.resolve(workdirNow, rawDest);
        const dest = intoDir && resolved !== "/" ? `${resolved}/` : resolved;
        for (const source of sources) {
          if (keyword === "ADD" && /^(https?|git):\/\/|^git@/.test(source)) {
            warnings.push(`${at}: ADD of the URL ${source} is not supported (sandboxes have no network); skipped`);
            continue;
          }
          // Docker reads every source inside the build context, whatever its leading slash.
          const inContext = path.posix.normalize(source.replace(/^\/+/, "") || ".").replace(/(.)\/+$/, "$1");
          if (inContext === ".." || inContext.startsWith("../")) {
            warnings.push(`${at}: ${keyword} source ${source} is outside the build context; skipped`);
            continue;
          }
          s.steps.push({ kind: "copy", line, source: inContext, dest, extract: keyword === "ADD" && ARCHIVE.test(inContext) });
        }
        break;
      }
      case "RUN": {
        let body = rest;
        const flags: string[] = [];
        while (/^--[\w-]+(=\S*)?(\s|$)/.test(body)) {
          const flag = /^\S+/.exec(body)![0];
          flags.push(flag);
          body = body.slice(flag.length).trimStart();
        }
        for (const f of flags) warnings.push(`${at}: RUN ${f.split("=")[0]} ignored`);
        const exec = jsonArray(body);
        let command: string;
        if (exec) command = exec.map(shellQuote).join(" ");
        else if (ins.heredocs.length === 1 && /^<<-?(["']?)[A-Za-z_][A-Za-z0-9_]*\1$/.test(body)) {
          // `RUN <<EOF … EOF` runs the body as a script.
          command = ins.heredocs[0]!.body;
        } else command = [body, ...ins.heredocs.map((h) => `${h.body}\n${h.word}`)].join("\n");
        if (command.trim() === "") throw new DockerfileSyntaxError(`${at}: RUN needs a command`);
        s.steps.push({ kind: "run", line, command, workdir: workdirNow, env: { ...s.args, ...s.env } });
        break;
      }
      case "SHELL": {
        const shell = jsonArray(rest);
        if (!shell || !/(^|\/)(ba)?sh$/.test(shell[0] ?? "")) warnings.push(`${at}: SHELL ${rest} ignored: RUN commands run with bash -c`);
        break;
      }
      default:
        if (INERT.has(keyword)) break;
        warnings.push(`${at}: ${keyword} ignored${IGNORED[keyword] ? `: ${IGNORED[keyword]}` : " (not a supported instruction)"}`);
    }
  }

  const last = stages.at(-1);
  if (!last) throw new DockerfileSyntaxError("no FROM instruction");
  if (stages.length > 1) warnings.push(`multi-stage build: only the final stage (line ${last.line}) is imported`);
  return { baseImage: last.baseImage, workdir: last.workdir, env: last.env, steps: last.steps, warnings };
}
