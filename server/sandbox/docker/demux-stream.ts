/**
 * Splits the engine's multiplexed exec/attach stream (Tty off): frames of an 8-byte header
 * [stream, 0, 0, 0, size as big-endian uint32] followed by `size` bytes; stream 1 is stdout, 2 is stderr.
 */
export class StreamDemuxer {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly onFrame: (stream: "stdout" | "stderr", data: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 8) {
      const size = this.pending.readUInt32BE(4);
      if (this.pending.length < 8 + size) return;
      const kind = this.pending[0] === 2 ? "stderr" : "stdout";
      this.onFrame(kind, this.pending.subarray(8, 8 + size));
      this.pending = this.pending.subarray(8 + size);
    }
  }
}
