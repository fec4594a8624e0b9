/**
 * What each turn of a trajectory did to the workspace, read from its tool call:
 * the files it changed (edits, creates, and shell commands that remove, move,
 * copy over, rewrite or redirect into files), the files it mentioned, and the
 * names it defined or imported. Paths are relative to the workspace; scratch
 * files outside it (/tmp) are not the agent's work and are left out.
 */

/** The part of a turn the analysis reads. */
export interface TurnCall {
  index: number;
  /** tool name (bash, view, create, edit, submit) or null */
  tool: string | null;
  /** the call's argument that matters: the command, or the text written (may be cut) */
  detail: string;
  /** the one-line summary (`edit /workspace/a.py: x → y`) */
  call: string;
  observation: string;
}

export interface TurnFiles {
  index: number;
  /** files this turn changed, relative to the workspace (may include globs like `*.py`) */
  changed: string[];
  /** files this turn named (changed, viewed, or passed to a command) */
  mentioned: string[];
  /** names this turn showed to be defined in a file: identifier → file */
  defines: [string, string][];
}

const FILE = /(?:\/?[\w.*-]+\/)*[\w*-]+(?:\.[\w-]+)*\.(?:py|sh|json|ini|toml|cfg|conf|md|txt|csv|ya?ml|in|bak|html)\b(?:\.bak)?/g;

/** A path as the agent's workspace sees it, or null for paths outside it. */
export function workspaceRelative(p: string, cwd = "/workspace"): string | null {
  const clean = p.replace(/^['"]|['"]$/g, "");
  if (clean.startsWith("/workspace/")) return clean.slice("/workspace/".length);
  if (clean === "/workspace") return null;
  if (clean.startsWith("/") || clean.startsWith("~") || clean.startsWith("$") || clean.startsWith("-")) return null;
  const base = cwd === "/workspace" ? "" : `${cwd.replace(/^\/workspace\/?/, "")}/`;
  return `${base}${clean.replace(/^\.\//, "")}` || null;
}

/** Split a shell command into simple commands (outside quotes) and pull heredoc bodies out. */
function simpleCommands(command: string): { words: string[]; redirects: string[]; body: string }[] {
  const out: { words: string[]; redirects: string[]; body: string }[] = [];
  const lines = command.split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    i += 1;
    const heredoc = /<<-?\s*'?"?(\w+)'?"?/.exec(line);
    let body = "";
    if (heredoc) {
      const end = heredoc[1]!;
      const bodyLines: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== end) bodyLines.push(lines[i++]!);
      i += 1;
      body = bodyLines.join("\n");
    }
    let words: string[] = [];
    let redirects: string[] = [];
    let word = "";
    let quote: string | null = null;
    let pendingRedirect = false;
    let pendingInput = false;
    const flush = () => {
      if (word === "") return;
      if (pendingRedirect) redirects.push(word);
      else if (!pendingInput) words.push(word);
      pendingRedirect = false;
      pendingInput = false;
      word = "";
    };
    const end = () => {
      flush();
      if (words.length > 0 || redirects.length > 0) out.push({ words, redirects, body });
      words = [];
      redirects = [];
    };
    // The heredoc's marker is not a word of the command.
    const text = heredoc ? line.replace(/<<-?\s*'?"?\w+'?"?/, " ") : line;
    for (let c = 0; c < text.length; c++) {
      const ch = text[c]!;
      if (quote) {
        if (ch === quote) quote = null;
        else word += ch;
        continue;
      }
      if (ch === "'" || ch === '"') quote = ch;
      else if (ch === " " || ch === "\t") flush();
      else if (ch === ";" || ch === "|" || ch === "&" || ch === "(" || ch === ")") {
        if (ch === "&" && text[c - 1] === ">") continue;
        end();
      } else if (ch === ">") {
        flush();
        if (text[c + 1] === ">") c++;
        if (text[c + 1] === "&") {
          c += 2; // 2>&1: not a file
          continue;
        }
        // `2>` redirects stderr: the digit was flushed as a word; drop it.
        if (/^\d$/.test(words.at(-1) ?? "")) words.pop();
        pendingRedirect = true;
      } else if (ch === "<") {
        flush();
        pendingInput = true;
      } else word += ch;
    }
    end();
    if (body && out.length > 0 && !out.at(-1)!.body) out.at(-1)!.body = body;
  }
  return out;
}

function writesInScript(script: string): string[] {
  const files: string[] = [];
  for (const m of script.matchAll(/open\(\s*['"]([^'"]+)['"]\s*,\s*['"][wa]b?\+?['"]/g)) files.push(m[1]!);
  for (const m of script.matchAll(/Path\(\s*['"]([^'"]+)['"]\s*\)\.(?:write_text|write_bytes|unlink)/g)) files.push(m[1]!);
  for (const m of script.matchAll(/os\.(?:remove|unlink)\(\s*['"]([^'"]+)['"]/g)) files.push(m[1]!);
  return files;
}

/** Files a shell command changes. */
export function filesChangedByCommand(command: string): string[] {
  const changed: string[] = [];
  let cwd = "/workspace";
  const add = (p: string) => {
    const rel = workspaceRelative(p, cwd);
    if (rel) changed.push(rel);
  };
  for (const { words, redirects, body } of simpleCommands(command)) {
    redirects.forEach(add);
    const [cmd, ...args] = words;
    const operands = args.filter((a) => !a.startsWith("-"));
    switch (cmd) {
      case "cd":
        cwd = operands[0]?.startsWith("/") ? operands[0] : `${cwd}/${operands[0] ?? ""}`;
        break;
      case "rm":
      case "touch":
      case "truncate":
      case "mkdir":
      case "tee":
      case "unlink":
        operands.forEach(add);
        break;
      case "chmod":
        operands.slice(1).forEach(add);
        break;
      case "mv":
        operands.forEach(add);
        break;
      case "cp":
      case "install":
        if (operands.length >= 2) add(operands.at(-1)!);
        break;
      case "sed":
      case "perl":
        if (args.some((a) => /^-[a-zA-Z]*i/.test(a)) && operands.length >= 2) add(operands.at(-1)!);
        break;
      case "python":
      case "python3": {
        const inline = args[args.indexOf("-c") + 1];
        writesInScript(`${args.includes("-c") && inline ? inline : ""}\n${body}`).forEach(add);
        break;
      }
    }
  }
  return [...new Set(changed)];
}

/** Definitions visible in code text: `def name`, `class Name`, `NAME = …`. */
function definedNames(code: string): string[] {
  const names = new Set<string>();
  for (const m of code.matchAll(/^\s*(?:\d+\t)?\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)/gm)) names.add(m[1]!);
  for (const m of code.matchAll(/^(?:\d+\t)?([A-Za-z_]\w*)\s*=(?!=)/gm)) names.add(m[1]!);
  for (const m of code.matchAll(/^\s*(?:\d+\t)?\s*(?:function\s+)?([A-Za-z_]\w*)\s*\(\)\s*\{/gm)) names.add(m[1]!);
  return [...names];
}

function pathOf(call: string): string | null {
  return /^(?:edit|create|view) (\/[^\s:]+)/.exec(call)?.[1] ?? null;
}

export function turnFiles(turn: TurnCall): TurnFiles {
  const changed: string[] = [];
  const mentioned = new Set<string>();
  const defines: [string, string][] = [];
  const path = pathOf(turn.call);
  const rel = path ? workspaceRelative(path) : null;
  if (rel) mentioned.add(rel);
  switch (turn.tool) {
    case "edit":
    case "create":
      if (rel) {
        changed.push(rel);
        for (const name of definedNames(turn.detail)) defines.push([name, rel]);
      }
      break;
    case "view":
      if (rel) for (const name of definedNames(turn.observation)) defines.push([name, rel]);
      break;
    case "bash": {
      changed.push(...filesChangedByCommand(turn.detail || turn.call));
      for (const m of turn.detail.matchAll(FILE)) {
        const r = workspaceRelative(m[0]);
        if (r) mentioned.add(r);
      }
      // `from pipeline.parse import parse_sales`: the agent knows where parse_sales lives.
      for (const m of turn.detail.matchAll(/from ([\w.]+) import ([\w, ]+)/g)) {
        const file = `${m[1]!.replace(/\./g, "/")}.py`;
        for (const name of m[2]!.split(",").map((s) => s.trim().split(/\s+/)[0]!)) if (name) defines.push([name, file]);
      }
      break;
    }
  }
  changed.forEach((c) => mentioned.add(c));
  return { index: turn.index, changed: [...new Set(changed)], mentioned: [...mentioned], defines };
}

/** A glob (`*.py`, `dist/*`) as a matcher of relative paths. */
export function globMatcher(pattern: string): ((p: string) => boolean) | null {
  if (!/[*?[]/.test(pattern)) return null;
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]")}$`);
  return (p) => re.test(p);
}

/** `lru.py` names `service/lru.py`; `service/lru.py` names itself. */
export function sameFile(named: string, file: string): boolean {
  if (named === file) return true;
  return file.endsWith(`/${named}`) || named.endsWith(`/${file}`);
}
