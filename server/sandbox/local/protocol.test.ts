import { describe, expect, it } from "vitest";
import { decodeEntry, decodeResponses, encodeRequest, Op } from "./protocol";

describe("protocol", () => {
  it("encodes requests with length-prefixed args", () => {
    const b = encodeRequest(7, Op.exec, ["ab", Buffer.from([0, 1]), 42]);
    expect(b.readUInt32LE(0)).toBe(b.length - 4);
    expect(b.readUInt32LE(4)).toBe(7);
    expect(b.readUInt32LE(8)).toBe(Op.exec);
    expect(b.readUInt32LE(12)).toBe(3);
    expect(b.subarray(20, 22).toString()).toBe("ab");
  });

  it("decodes whole responses and keeps a partial tail", () => {
    const frame = (id: number, fields: string[]) => {
      const body = Buffer.concat(fields.map((f) => Buffer.concat([u32(f.length), Buffer.from(f)])));
      return Buffer.concat([u32(12 + body.length), u32(id), u32(0), u32(fields.length), body]);
    };
    const all = Buffer.concat([frame(1, ["x", "yz"]), frame(2, [])]);
    const { responses, rest } = decodeResponses(all.subarray(0, all.length - 3));
    expect(responses).toHaveLength(1);
    expect(responses[0]?.fields.map(String)).toEqual(["x", "yz"]);
    expect(rest.length).toBe(all.length - 3 - frame(1, ["x", "yz"]).length);
  });

  it("rejects a corrupt entry", () => {
    expect(() => decodeEntry(Buffer.alloc(10))).toThrow();
  });
});

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}
