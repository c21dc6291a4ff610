/** An Io that records what a command prints, for CLI tests. */
import type { Io } from "../../src/cli/io.js";

export interface RecordingIo extends Io {
  readonly stdout: string[];
  readonly stderr: string[];
}

export function recordingIo(stdin = ""): RecordingIo {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (t) => stdout.push(t),
    err: (t) => stderr.push(t),
    progress: (t) => stderr.push(t),
    progressDone: () => undefined,
    readStdin: () => Promise.resolve(stdin),
  };
}
