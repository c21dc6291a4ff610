/**
 * Running the command that writes kube-bench's JSON (`bylaw kube-bench -- COMMAND ARG...`): executed
 * directly, with no shell (Bylaw's image has none), bounded in time and in output, stoppable by a signal. Its stdout is the JSON; a command that exits
 * non-zero, writes too much, or outlives its time is an error that quotes the end of its stderr.
 */
import { spawn } from "node:child_process";

interface RunLimits {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly signal?: AbortSignal;
}

type CommandOutput = { readonly ok: true; readonly stdout: string } | { readonly ok: false; readonly error: string };

const STDERR_TAIL = 2000;

export function runCommand(argv: readonly string[], limits: RunLimits): Promise<CommandOutput> {
  return new Promise((done) => {
    const command = argv.join(" ");
    const child = spawn(argv[0] ?? "", argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let outBytes = 0;
    let errTail = "";
    let stopped: string | undefined;
    const stop = (why: string) => {
      if (stopped !== undefined) return;
      stopped = why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => stop(`it was still running after ${limits.timeoutMs / 1000}s`), limits.timeoutMs);
    const onAbort = () => stop("Bylaw was asked to stop");
    limits.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > limits.maxBytes) stop(`it wrote more than ${limits.maxBytes} bytes`);
      else out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      errTail = (errTail + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    const finish = (result: CommandOutput) => {
      clearTimeout(timer);
      limits.signal?.removeEventListener("abort", onAbort);
      done(result);
    };
    child.on("error", (e) => finish({ ok: false, error: `${JSON.stringify(command)} could not start: ${e.message}` }));
    child.on("close", (code, signal) => {
      const said = errTail.trim() === "" ? "" : `; its stderr ends: ${errTail.trim()}`;
      if (stopped !== undefined)
        finish({ ok: false, error: `${JSON.stringify(command)} was stopped: ${stopped}${said}` });
      else if (code !== 0)
        finish({
          ok: false,
          error: `${JSON.stringify(command)} exited with ${code === null ? `signal ${signal}` : `code ${code}`}${said}`,
        });
      else finish({ ok: true, stdout: Buffer.concat(out).toString("utf8") });
    });
  });
}
