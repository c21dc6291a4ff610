/** Test helpers: a one-shot HTTPS client that reports status, headers, body and the peer's serial. */
import { request } from "node:https";
import type { Agent } from "node:https";
import type { IncomingHttpHeaders } from "node:http";

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
  serial: string;
  /** The request went over a kept-alive connection. */
  reused: boolean;
}

export interface Send {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** One string is sent with a content-length; an array is sent chunked, one write per item. */
  body?: string | string[];
  agent?: Agent;
}

export function send(port: number, ca: string | string[], s: Send): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(s.headers ?? {}) };
    if (typeof s.body === "string" && !("content-length" in headers))
      headers["content-length"] = String(Buffer.byteLength(s.body));
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: s.method ?? "POST",
        path: s.path,
        headers,
        ca,
        servername: "webhook.test.svc",
        agent: s.agent ?? false,
      },
      (res) => {
        const serial = (
          res.socket as unknown as { getPeerCertificate(): { serialNumber: string } }
        ).getPeerCertificate().serialNumber;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json, serial, reused: req.reusedSocket });
        });
      },
    );
    req.on("error", reject);
    if (Array.isArray(s.body)) for (const chunk of s.body) req.write(chunk);
    else if (s.body !== undefined) req.write(s.body);
    req.end();
  });
}
