/** Where a command writes: results to stdout, diagnostics and progress to stderr. Tests pass a fake. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** A transient progress line on stderr (overwritten on a terminal, printed sparingly otherwise). */
  progress(text: string): void;
  progressDone(): void;
  readStdin(): Promise<string>;
}

export function processIo(): Io {
  let count = 0;
  let shown = false;
  return {
    out: (t) => process.stdout.write(t + "\n"),
    err: (t) => process.stderr.write(t + "\n"),
    progress: (t) => {
      count++;
      if (process.stderr.isTTY) {
        process.stderr.write(`\r\x1b[K${t.slice(0, (process.stderr.columns || 100) - 1)}`);
        shown = true;
      } else if (count % 50 === 0) process.stderr.write(`${t}\n`);
    },
    progressDone: () => {
      if (shown) process.stderr.write("\r\x1b[K");
      shown = false;
    },
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
  };
}
