/** Write a JSON response with an exact content-length. */
import type { ServerResponse } from "node:http";

/**
 * The body goes to `end` as a string: Node then sends the head and the body as one chunk, which
 * TLS encrypts as one record in one write. With a Buffer body they are two chunks (measured: about
 * 80 µs more per response on loopback TLS).
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  payload: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(payload, "utf8")),
  });
  res.end(payload, "utf8");
}

/** `{"error": message}`, the body of every error answer. */
export function errorPayload(message: string): string {
  return JSON.stringify({ error: message });
}
