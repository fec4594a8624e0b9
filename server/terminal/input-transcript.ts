/**
 * The command lines a person typed, reconstructed from keystrokes: printable characters,
 * backspace and Enter. Escape sequences (arrows, history, completion) are dropped, so a line
 * edited with them is recorded as typed, not as run; it is a summary, not a replay script.
 */
export class InputTranscript {
  private current = "";
  private lines: string[] = [];

  constructor(private readonly maxLines = 200) {}

  feed(data: string): void {
    // eslint-disable-next-line no-control-regex -- escape sequences are what is being removed
    const cleaned = data.replace(/\x1b(\[[0-9;?]*[ -/]*[@-~]|O.|[@-Z\\-_])/g, "");
    for (const ch of cleaned) {
      if (ch === "\r" || ch === "\n") {
        if (this.current.trim()) this.lines.push(this.current.trimEnd());
        if (this.lines.length > this.maxLines) this.lines.shift();
        this.current = "";
      } else if (ch === "\x7f" || ch === "\b") {
        this.current = this.current.slice(0, -1);
      } else if (ch === "\x03" || ch === "\x15") {
        this.current = "";
      } else if (ch >= " ") {
        this.current += ch;
      }
    }
  }

  /** The lines since the last take, and forget them. */
  take(): string[] {
    const lines = this.lines;
    this.lines = [];
    return lines;
  }

  peek(): readonly string[] {
    return this.lines;
  }
}

/** Terminal output as plain text: escape sequences and carriage returns removed. */
export function plainText(output: Buffer | string): string {
  /* eslint-disable no-control-regex -- escape sequences are what is being removed */
  return output
    .toString()
    .replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, "")
    .replace(/\x1b(\[[0-9;?]*[ -/]*[@-~]|[@-Z\\-_]|[()][0-9A-Za-z])/g, "")
    .replace(/\r+\n/g, "\n")
    .replace(/[^\n\t\x20-\x7e\u00a0-\uffff]/g, "");
  /* eslint-enable no-control-regex */
}
