/** A one-line progress bar on a terminal; plain lines when output is piped. */
export function progressReporter(label: string, stream: NodeJS.WriteStream = process.stderr) {
  let lastPlain = -1;
  return {
    update(done: number, total: number, detail = ""): void {
      if (stream.isTTY) {
        const width = 28;
        const filled = total === 0 ? width : Math.round((done / total) * width);
        stream.write(`\r${label} [${"█".repeat(filled)}${"░".repeat(width - filled)}] ${done}/${total} ${detail}\x1b[K`);
      } else if (done !== lastPlain) {
        stream.write(`${label} ${done}/${total} ${detail}\n`);
        lastPlain = done;
      }
    },
    end(): void {
      if (stream.isTTY) stream.write("\n");
    },
  };
}
