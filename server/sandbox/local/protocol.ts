/**
 * Wire format shared with native/sandboxd.c. Little-endian frames on the helper's stdin/stdout:
 * request  = u32 len | u32 id | u32 op | u32 nargs | (u32 n | bytes){nargs}
 * response = u32 len | u32 id | i32 status | u32 nfields | (u32 n | bytes){nfields}
 * status 0 is success; otherwise an errno and field 0 is a message.
 */

export const Op = {
  ping: 1,
  mkmask: 2,
  create: 3,
  exec: 4,
  checkpoint: 5,
  destroy: 6,
  readFile: 7,
  writeFile: 8,
  scan: 9,
  statMany: 10,
  squash: 11,
  cgCleanup: 12,
  mkdirp: 13,
  pty: 14,
  ptyResize: 15,
  ptyKill: 16,
} as const;
export type OpCode = (typeof Op)[keyof typeof Op];

export type Arg = string | Buffer | number;

export function encodeRequest(id: number, op: OpCode, args: readonly Arg[]): Buffer {
  const bufs = args.map((a) => (Buffer.isBuffer(a) ? a : Buffer.from(typeof a === "number" ? String(a) : a)));
  const len = 12 + bufs.reduce((n, b) => n + 4 + b.length, 0);
  const out = Buffer.allocUnsafe(4 + len);
  out.writeUInt32LE(len, 0);
  out.writeUInt32LE(id, 4);
  out.writeUInt32LE(op, 8);
  out.writeUInt32LE(bufs.length, 12);
  let off = 16;
  for (const b of bufs) {
    out.writeUInt32LE(b.length, off);
    b.copy(out, off + 4);
    off += 4 + b.length;
  }
  return out;
}

export interface Response {
  id: number;
  status: number;
  fields: Buffer[];
}

/** Splits complete frames off the front of `buf`; returns them and the unconsumed rest. */
export function decodeResponses(buf: Buffer): { responses: Response[]; rest: Buffer } {
  const responses: Response[] = [];
  let off = 0;
  while (buf.length - off >= 4) {
    const len = buf.readUInt32LE(off);
    if (buf.length - off - 4 < len) break;
    const f = off + 4;
    const id = buf.readUInt32LE(f);
    const status = buf.readInt32LE(f + 4);
    const n = buf.readUInt32LE(f + 8);
    const fields: Buffer[] = [];
    let q = f + 12;
    for (let i = 0; i < n; i++) {
      const fl = buf.readUInt32LE(q);
      fields.push(buf.subarray(q + 4, q + 4 + fl));
      q += 4 + fl;
    }
    responses.push({ id, status, fields });
    off = f + len;
  }
  return { responses, rest: buf.subarray(off) };
}

/** One file system entry as the helper reports it (scan of a layer, stat in a checkpoint). */
export interface EntryInfo {
  /** f file, d dir, l symlink, w overlay whiteout, o other */
  type: "f" | "d" | "l" | "w" | "o";
  opaque: boolean;
  mode: number;
  uid: number;
  gid: number;
  nlink: number;
  size: number;
  mtimeNs: bigint;
  ino: bigint;
  path: string;
  linkTarget: string | null;
}

const TYPES = new Set(["f", "d", "l", "w", "o"]);

export function decodeEntry(b: Buffer): EntryInfo {
  if (b.length < 48) throw new Error("short entry");
  const type = String.fromCharCode(b[0] ?? 0);
  if (!TYPES.has(type)) throw new Error(`bad entry type ${type}`);
  const pl = b.readUInt32LE(44);
  const path = b.subarray(48, 48 + pl).toString();
  return {
    type: type as EntryInfo["type"],
    opaque: b[1] === 1,
    mode: b.readUInt32LE(4),
    uid: b.readUInt32LE(8),
    gid: b.readUInt32LE(12),
    nlink: b.readUInt32LE(16),
    size: Number(b.readBigUInt64LE(20)),
    mtimeNs: b.readBigInt64LE(28),
    ino: b.readBigUInt64LE(36),
    path,
    linkTarget: type === "l" ? b.subarray(48 + pl).toString() : null,
  };
}
