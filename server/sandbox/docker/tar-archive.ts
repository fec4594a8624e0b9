/**
 * The little tar the Docker archive API speaks: a writer for one file and a streaming reader. Enough for ustar, PAX
 * (Go's archive/tar, which the engine uses, writes PAX for long names and big ids) and GNU long names.
 */

const BLOCK = 512;

export type TarEntryType = "file" | "dir" | "symlink" | "hardlink" | "other";

export interface TarHeader {
  /** Relative path without a leading "./" or "/"; "" for the archive's root directory entry. */
  path: string;
  type: TarEntryType;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  linkname: string;
}

/** Receives one entry's body; `end` is called after the last chunk. */
export interface TarEntrySink {
  data(chunk: Buffer): void;
  end(): void;
}

function octal(value: number, length: number): string {
  return value.toString(8).padStart(length - 1, "0") + "\0";
}

function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  // The length prefix counts itself, so grow it until it is stable.
  let len = Buffer.byteLength(body);
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return Buffer.from(`${len}${body}`);
}

function header(name: string, size: number, typeflag: string, mode: number, uid: number, gid: number): Buffer {
  const h = Buffer.alloc(BLOCK, 0);
  h.write(name, 0, 100, "utf8");
  h.write(octal(mode & 0o7777, 8), 100, "ascii");
  h.write(octal(uid, 8), 108, "ascii");
  h.write(octal(gid, 8), 116, "ascii");
  h.write(octal(size, 12), 124, "ascii");
  h.write(octal(Math.floor(Date.now() / 1000), 12), 136, "ascii");
  h.write(typeflag, 156, "ascii");
  h.write("ustar\u000000", 257, "binary");
  h.fill(" ", 148, 156);
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(octal(sum, 7) + " ", 148, "ascii");
  return h;
}

function padded(data: Buffer): Buffer[] {
  const rest = data.length % BLOCK;
  return rest === 0 ? [data] : [data, Buffer.alloc(BLOCK - rest, 0)];
}

/** An archive holding one regular file named `name` (a base name, extracted into the directory given to putArchive). */
export function tarOneFile(name: string, data: Buffer, options: { mode: number; uid?: number; gid?: number }): Buffer {
  const parts: Buffer[] = [];
  const uid = options.uid ?? 0;
  const gid = options.gid ?? 0;
  let shortName = name;
  if (Buffer.byteLength(name) > 100) {
    const pax = paxRecord("path", name);
    parts.push(header("PaxHeader", pax.length, "x", 0o644, 0, 0), ...padded(pax));
    shortName = Buffer.from(name).subarray(0, 100).toString("utf8");
  }
  parts.push(header(shortName, data.length, "0", options.mode, uid, gid), ...padded(data));
  parts.push(Buffer.alloc(BLOCK * 2, 0));
  return Buffer.concat(parts);
}

function cstring(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString("utf8");
}

function number(block: Buffer, start: number, length: number): number {
  const field = block.subarray(start, start + length);
  // GNU base-256: high bit of the first byte set (sizes over 8 GiB, large ids).
  if (((field[0] ?? 0) & 0x80) !== 0) {
    let value = (field[0] ?? 0) & 0x7f;
    for (let i = 1; i < field.length; i++) value = value * 256 + (field[i] ?? 0);
    return value;
  }
  const text = cstring(block, start, length).trim();
  return text === "" ? 0 : parseInt(text, 8);
}

function parsePax(body: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    if (space === -1) break;
    const len = parseInt(body.subarray(at, space).toString("ascii"), 10);
    if (!Number.isFinite(len) || len <= 0) break;
    const record = body.subarray(space + 1, at + len - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    at += len;
  }
  return out;
}

function typeOf(flag: string): TarEntryType {
  switch (flag) {
    case "0":
    case "\0":
    case "":
    case "7":
      return "file";
    case "5":
      return "dir";
    case "2":
      return "symlink";
    case "1":
      return "hardlink";
    default:
      return "other";
  }
}

function normalise(path: string): string {
  return path.replace(/^(\.\/|\/)+/, "").replace(/\/+$/, "").replace(/^\.$/, "");
}

type State =
  | { kind: "header" }
  | { kind: "body"; left: number; pad: number; sink: TarEntrySink | undefined }
  | { kind: "meta"; flag: string; left: number; pad: number; parts: Buffer[] }
  | { kind: "skip"; left: number };

/**
 * Streams `source` through `onEntry`; returning a sink receives the entry's body, returning "stop" ends reading
 * early (the caller destroys the source). Resolves when the archive ends.
 */
export async function readTar(
  source: AsyncIterable<Buffer | string>,
  onEntry: (header: TarHeader) => TarEntrySink | undefined | "stop",
): Promise<void> {
  let pending = Buffer.alloc(0);
  let state: State = { kind: "header" };
  let pax = new Map<string, string>();
  let longName: string | undefined;
  let longLink: string | undefined;

  for await (const raw of source) {
    let chunk = typeof raw === "string" ? Buffer.from(raw) : raw;
    while (chunk.length > 0) {
      if (state.kind === "body") {
        const n = Math.min(state.left, chunk.length);
        if (n > 0) state.sink?.data(chunk.subarray(0, n));
        state.left -= n;
        chunk = chunk.subarray(n);
        if (state.left === 0) {
          state.sink?.end();
          state = { kind: "skip", left: state.pad };
        }
        continue;
      }
      if (state.kind === "meta") {
        const n = Math.min(state.left, chunk.length);
        state.parts.push(chunk.subarray(0, n));
        state.left -= n;
        chunk = chunk.subarray(n);
        if (state.left === 0) {
          const body = Buffer.concat(state.parts);
          if (state.flag === "x") pax = parsePax(body);
          else if (state.flag === "L") longName = cstring(body, 0, body.length);
          else if (state.flag === "K") longLink = cstring(body, 0, body.length);
          state = { kind: "skip", left: state.pad };
        }
        continue;
      }
      if (state.kind === "skip") {
        const n = Math.min(state.left, chunk.length);
        state.left -= n;
        chunk = chunk.subarray(n);
        if (state.left === 0) state = { kind: "header" };
        continue;
      }
      const need = BLOCK - pending.length;
      pending = Buffer.concat([pending, chunk.subarray(0, need)]);
      chunk = chunk.subarray(need);
      if (pending.length < BLOCK) continue;
      const block = pending;
      pending = Buffer.alloc(0);
      if (block.every((b) => b === 0)) return;

      const flag = String.fromCharCode(block[156] ?? 0);
      const size = Number(pax.get("size") ?? number(block, 124, 12));
      const pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (flag === "x" || flag === "L" || flag === "K") {
        state = size === 0 ? { kind: "header" } : { kind: "meta", flag, left: size, pad, parts: [] };
        continue;
      }
      if (flag === "g") {
        state = { kind: "skip", left: size + pad };
        continue;
      }
      const name = cstring(block, 0, 100);
      const prefix = block.subarray(257, 262).toString("ascii") === "ustar" ? cstring(block, 345, 155) : "";
      const entry: TarHeader = {
        path: normalise(pax.get("path") ?? longName ?? (prefix ? `${prefix}/${name}` : name)),
        type: typeOf(flag),
        mode: number(block, 100, 8) & 0o7777,
        uid: Number(pax.get("uid") ?? number(block, 108, 8)),
        gid: Number(pax.get("gid") ?? number(block, 116, 8)),
        size: typeOf(flag) === "file" ? size : 0,
        linkname: pax.get("linkpath") ?? longLink ?? cstring(block, 157, 100),
      };
      pax = new Map();
      longName = undefined;
      longLink = undefined;
      const sink = onEntry(entry);
      if (sink === "stop") return;
      if (size === 0) {
        sink?.end();
        state = { kind: "header" };
      } else {
        state = { kind: "body", left: size, pad, sink };
      }
    }
  }
}
