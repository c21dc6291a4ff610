/**
 * Read a request body under a size cap, and throw away what a rejected request still sends.
 * Buffering stops the moment the cap is passed. The remainder is then discarded, not stored, up to
 * a bound in bytes and time, so the client can read the error response before the connection is
 * cut (closing a socket with unread input sends a reset that can wipe the response; RFC 9112 §9.6).
 */
import type { IncomingMessage } from "node:http";

export type BodyRead =
  | { kind: "ok"; text: string }
  | { kind: "too-large"; declared?: number }
  | { kind: "over-budget" }
  | { kind: "aborted" };

/**
 * Reads the body and calls `done` once. Listeners stay attached after that (the request object
 * lives only as long as its exchange) but do nothing more, and keep nothing. `take`, when given,
 * is asked for each chunk's bytes before it is kept (the in-flight budget of a body sent without
 * a content-length); when it says no, reading stops with `over-budget`.
 */
export function readBody(
  req: IncomingMessage,
  maxBytes: number,
  done: (result: BodyRead) => void,
  take?: (bytes: number) => boolean,
): void {
  const declaredHeader = req.headers["content-length"];
  const declared = declaredHeader === undefined ? undefined : Number(declaredHeader);
  if (declared !== undefined && declared > maxBytes) {
    done({ kind: "too-large", declared });
    return;
  }
  let chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (result: BodyRead): void => {
    if (finished) return;
    finished = true;
    chunks = [];
    done(result);
  };
  req.on("data", (chunk: Buffer) => {
    if (finished) return;
    size += chunk.length;
    if (size > maxBytes) {
      req.pause();
      finish({ kind: "too-large" });
    } else if (take !== undefined && !take(chunk.length)) {
      req.pause();
      finish({ kind: "over-budget" });
    } else {
      chunks.push(chunk);
    }
  });
  req.on("end", () => {
    if (!finished) finish({ kind: "ok", text: Buffer.concat(chunks, size).toString("utf8") });
  });
  const aborted = (): void => finish({ kind: "aborted" });
  req.on("error", aborted);
  req.on("close", aborted);
}

interface DiscardLimits {
  /** Bytes thrown away before the connection is cut. */
  readonly maxBytes: number;
  /** Time allowed for the rest of the body to arrive before the connection is cut. */
  readonly lingerMs: number;
}

/** Discard the unread rest of a request body within limits; past them, destroy the connection. */
export function discardRest(req: IncomingMessage, limits: DiscardLimits): void {
  if (req.complete) return;
  let discarded = 0;
  const cut = (): void => {
    req.socket.destroy();
  };
  const timer = setTimeout(cut, limits.lingerMs);
  timer.unref();
  const done = (): void => clearTimeout(timer);
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limits.maxBytes) {
      done();
      cut();
    }
  });
  req.once("end", done);
  req.once("close", done);
  req.once("error", done);
  req.resume();
}
