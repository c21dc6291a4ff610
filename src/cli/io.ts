/** Where a command writes: results to stdout, diagnostics and progress to stderr. Tests pass a fake. */
import { progressAllowed } from "./progress-policy.js";
import { stopQuietlyWhenStdoutCloses } from "./closed-stdout.js";

export interface Io {
  out(text: string): void;
  /** Text on stdout with no line break after it (a line Kyverno prints without one); `out` where absent. */
  outUnterminated?(text: string): void;
  err(text: string): void;
  /** A transient progress line on stderr; commands call it only when `showsProgress(format)` says so. */
  progress(text: string): void;
  /** May progress be shown while stdout carries `outputFormat`? (a terminal, not CI, not a machine format) */
  showsProgress?(outputFormat: string): boolean;
  progressDone(): void;
  readStdin(): Promise<string>;
}

export function processIo(): Io {
  let shown = false;
  stopQuietlyWhenStdoutCloses(process.stdout, (code) => process.exit(code));
  return {
    out: (t) => process.stdout.write(t + "\n"),
    outUnterminated: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t + "\n"),
    showsProgress: (format) =>
      progressAllowed({ stderrIsTty: process.stderr.isTTY === true, env: process.env }, format),
    progress: (t) => {
      // Only ever on a terminal: a log file or a CI console gets no progress lines.
      if (!process.stderr.isTTY) return;
      process.stderr.write(`\r\x1b[K${t.slice(0, (process.stderr.columns || 100) - 1)}`);
      shown = true;
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
