/**
 * `bylaw … | head`: when the reader of stdout goes away, stop quietly, as cat, grep or kubectl do
 * (no stack trace; exit 141, the status a shell shows for a command ended by SIGPIPE). Node ignores
 * SIGPIPE, so a write to the closed pipe is an EPIPE error event instead.
 */
interface ErrorSource {
  on(event: "error", listener: (e: Error & { code?: string }) => void): unknown;
}

export const CLOSED_PIPE_EXIT = 141;

export function stopQuietlyWhenStdoutCloses(stdout: ErrorSource, exit: (code: number) => void): void {
  stdout.on("error", (e) => {
    if (e.code === "EPIPE") exit(CLOSED_PIPE_EXIT);
    else throw e;
  });
}
