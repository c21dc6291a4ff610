/** Write a JSON response with an exact content-length. */
import type { ServerResponse } from "node:http";

export function sendJson(res: ServerResponse, status: number, payload: string, headers: Record<string, string> = {}): void {
  const body = Buffer.from(payload, "utf8");
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": String(body.length),
  });
  res.end(body);
}

/** `{"error": message}`, the body of every error answer. */
export function errorPayload(message: string): string {
  return JSON.stringify({ error: message });
}
