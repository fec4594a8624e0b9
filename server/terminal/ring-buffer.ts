/** The last `capacityBytes` bytes written, for replay when a page reattaches. */
export class RingBuffer {
  private readonly buf: Buffer;
  private start = 0;
  private length = 0;

  constructor(readonly capacityBytes: number) {
    this.buf = Buffer.alloc(capacityBytes);
  }

  write(chunk: Buffer): void {
    const cap = this.capacityBytes;
    const data = chunk.length > cap ? chunk.subarray(chunk.length - cap) : chunk;
    let end = (this.start + this.length) % cap;
    const first = Math.min(data.length, cap - end);
    data.copy(this.buf, end, 0, first);
    data.copy(this.buf, 0, first);
    end = (end + data.length) % cap;
    this.length = Math.min(cap, this.length + data.length);
    this.start = (end - this.length + cap) % cap;
  }

  /** A copy of what is held, oldest first. */
  contents(): Buffer {
    const cap = this.capacityBytes;
    const first = this.buf.subarray(this.start, Math.min(cap, this.start + this.length));
    const rest = this.buf.subarray(0, this.length - first.length);
    return Buffer.concat([first, rest]);
  }

  get size(): number {
    return this.length;
  }
}
