/**
 * Read a request body under a size cap, and throw away what a rejected request still sends.
 * Buffering stops the moment the cap is passed. The remainder is then discarded, not stored, up to
 * a bound in bytes and time, so the client can read the error response before the connection is
 * cut (closing a socket with unread input sends a reset that can wipe the response; RFC 9112 §9.6).
 */
import type { IncomingMessage } from "node:http";

export type BodyRead = { kind: "ok"; text: string } | { kind: "too-large"; declared?: number } | { kind: "aborted" };

export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  const declaredHeader = req.headers["content-length"];
  const declared = declaredHeader === undefined ? undefined : Number(declaredHeader);
  if (declared !== undefined && declared > maxBytes) return Promise.resolve({ kind: "too-large", declared });
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BodyRead): void => {
      req.removeListener("data", onData);
      req.removeListener("end", onEnd);
      req.removeListener("error", onAbort);
      req.removeListener("close", onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks = [];
        req.pause();
        finish({ kind: "too-large" });
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = (): void => finish({ kind: "ok", text: Buffer.concat(chunks, size).toString("utf8") });
    const onAbort = (): void => finish({ kind: "aborted" });
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onAbort);
    req.on("close", onAbort);
  });
}

export interface DiscardLimits {
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
