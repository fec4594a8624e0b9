/**
 * Reads a verifier's feedback the way an analyst would: one entry per failing
 * test, with what it points at — workspace files in its traceback, files and
 * modules named in its messages, the functions its assertion calls, and the
 * words of its name. Only the feedback text is used (never the task's solution).
 */

/** One failing (or erroring) test, and the clues it gives about where the bug is. */
export interface TestFailure {
  /** the test method, e.g. `test_km_to_m`; null when the output is not unittest/pytest-shaped */
  test: string | null;
  /** the test's class, e.g. `LRUTests` */
  testClass: string | null;
  /** workspace files in the traceback, relative to the workspace, innermost last */
  frames: string[];
  /** files (relative paths or base names) named in the messages, outside the tests */
  namedFiles: string[];
  /** modules named in the messages, as relative paths without extension (`service/lru`) */
  modules: string[];
  /** functions and attributes the failing lines call or read (`parse_sales`, `sentences`) */
  identifiers: string[];
  /** words of the test's name and class, lower case (`evicts`, `lru`) */
  words: string[];
  /** the last line that says what went wrong (`AssertionError: 2 != 1`) */
  headline: string;
  /** the innermost workspace frame is a `raise` in the agent's code: it rejected its input on purpose */
  raisedOnPurpose: boolean;
}

const FILE = /(?:\/?[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:py|sh|json|ini|toml|cfg|conf|md|txt|csv|ya?ml|in|bak|html)\b(?:\.bak)?/g;
const NOT_CALLS = new Set([
  "self", "assert", "assertEqual", "assertIn", "assertNotIn", "assertIs", "assertTrue", "assertFalse", "assertRaises", "assertAlmostEqual",
  "len", "set", "sorted", "list", "dict", "tuple", "str", "int", "float", "open", "print", "range", "getattr", "hasattr", "isinstance",
  "join", "read", "write", "split", "strip", "format", "run", "path", "exists", "isfile", "isdir", "listdir", "remove", "keys", "items",
  "values", "get", "append", "main", "cli", "ok", "load", "dumps", "loads", "hexdigest", "sha256", "communicate", "check_output",
]);
const STOP_WORDS = new Set(["test", "tests", "is", "and", "the", "of", "a", "to", "in", "on", "with", "for", "by", "when", "not", "has", "after", "then", "its", "it", "as", "from"]);

/** `LRUTests` → [lru]; `test_list_sorted_by_priority` → [list, sorted, priority] */
export function nameWords(name: string): string[] {
  return name
    .replace(/Tests?$/, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .split(/[_\W]+/)
    .filter((w) => w.length >= 2 && !STOP_WORDS.has(w));
}

function relative(file: string): string | null {
  if (file.startsWith("/workspace/")) return file.slice("/workspace/".length);
  if (file.startsWith("/")) return null; // /tests, /tmp, system paths: not the agent's code
  return file.replace(/^\.\//, "");
}

function section(text: string, test: string | null, testClass: string | null): TestFailure {
  const lines = text.split("\n");
  const frames: string[] = [];
  const sourceLines: string[] = [];
  let lastSource = "";
  let lastInWorkspace = false;
  for (let i = 0; i < lines.length; i++) {
    const frame = /^\s*File "([^"]+)", line \d+/.exec(lines[i]!);
    if (!frame) continue;
    const rel = relative(frame[1]!);
    if (rel) frames.push(rel);
    const source = lines[i + 1];
    const hasSource = source !== undefined && !/^\s*File "/.test(source) && !/^\s*[~^]+\s*$/.test(source);
    if (hasSource) sourceLines.push(source.trim());
    lastSource = hasSource ? source.trim() : "";
    lastInWorkspace = rel !== null;
  }
  // What went wrong: the exception line and what follows it.
  const errorAt = lines.findIndex((l) => /^[\w.]*(Error|Exception|Failure)\b/.test(l.trim()));
  const message = errorAt >= 0 ? lines.slice(errorAt).join("\n") : lines.filter((l) => !/^\s*(File "|Traceback|-{5,})/.test(l)).join("\n");
  const headline = (errorAt >= 0 ? lines[errorAt]! : lines.find((l) => l.trim() && !/^-{5,}$|^(FAIL|ERROR):/.test(l.trim())) ?? "").trim().slice(0, 200);
  const namedFiles = new Set<string>();
  for (const m of [...message.matchAll(FILE), ...sourceLines.join("\n").matchAll(FILE)]) {
    const rel = relative(m[0]);
    if (rel && !/^test_[\w]+\.py$/.test(rel.split("/").pop() ?? "")) namedFiles.add(rel);
  }
  const modules = new Set<string>();
  // Dotted names of classes and functions: `service.lru.LRUCache`, `app.config.ConfigError`.
  for (const m of message.matchAll(/\b([a-z_]\w*(?:\.[a-z_]\w*)*)\.[A-Z]\w*/g)) {
    if (!m[1]!.startsWith("test_")) modules.add(m[1]!.replace(/\./g, "/"));
  }
  for (const m of message.matchAll(/module '([\w.]+)' has no attribute/g)) modules.add(m[1]!.replace(/\./g, "/"));
  const identifiers = new Set<string>();
  for (const src of sourceLines) {
    for (const m of src.matchAll(/(?<![\w.])([A-Za-z_]\w*)\s*\(/g)) if (!NOT_CALLS.has(m[1]!) && m[1]!.length > 2) identifiers.add(m[1]!);
    for (const m of src.matchAll(/\.([A-Za-z_]\w*)\s*\(/g)) if (!NOT_CALLS.has(m[1]!) && m[1]!.length > 2) identifiers.add(m[1]!);
  }
  for (const m of message.matchAll(/has no attribute '(\w+)'/g)) identifiers.add(m[1]!);
  for (const m of message.matchAll(/KeyError: '(\w+)'/g)) identifiers.add(m[1]!);
  const words = [...new Set([...(test ? nameWords(test) : []), ...(testClass ? nameWords(testClass) : [])])];
  const raisedOnPurpose = lastInWorkspace && /^raise\b/.test(lastSource);
  return { test, testClass, frames, namedFiles: [...namedFiles], modules: [...modules], identifiers: [...identifiers], words, headline, raisedOnPurpose };
}

/** The failing tests in unittest- or pytest-style feedback; the whole text as one failure when it has neither. */
export function parseFailures(feedback: string): TestFailure[] {
  const text = feedback.replace(/\r\n/g, "\n");
  const heads = [...text.matchAll(/^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)/gm)];
  if (heads.length > 0) {
    return heads.map((h, i) => {
      const body = text.slice(h.index, heads[i + 1]?.index ?? text.length);
      const dotted = h[2]!.split(".");
      const testClass = dotted.length >= 2 ? dotted[dotted.length - 2]! : null;
      return section(body, h[1]!, testClass && /^[A-Z]/.test(testClass) ? testClass : null);
    });
  }
  const pytest = [...text.matchAll(/^_{3,} (?:(\w+)\.)?(test\w+) _{3,}$/gm)];
  if (pytest.length > 0) {
    return pytest.map((h, i) => section(text.slice(h.index, pytest[i + 1]?.index ?? text.length), h[2]!, h[1] ?? null));
  }
  return text.trim() ? [section(text, null, null)] : [];
}
