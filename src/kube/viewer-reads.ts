/**
 * Reads made with a viewer's own bearer token, for the report UI (docs/adr/0022-report-ui.md): the
 * HTTPS agent trusts the connection's CA but carries no client certificate, and no request carries
 * Bylaw's token or an impersonation header, so the API server grants exactly what the viewer's
 * identity may do. Answers are never shared between viewers (no request gate, no coalescing).
 */
import { Agent, request as httpsRequest } from "node:https";
import type { KubeConnection } from "./types.js";
import { readCapped, TOO_LARGE } from "../platform/http/index.js";

/** A GET's answer: the JSON body, or the status and the API server's message. */
export type ViewerAnswer =
  | { readonly ok: true; readonly body: unknown }
  | { readonly ok: false; readonly status: number; readonly message: string };

export interface ViewerReads {
  /** GET `path` (already encoded) as the bearer of `token`. */
  get(token: string, path: string): Promise<ViewerAnswer>;
  close(): void;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const TIMEOUT_MS = 15_000;

export function createViewerReads(connection: KubeConnection): ViewerReads {
  const url = new URL(connection.server);
  const agent = new Agent({
    keepAlive: true,
    maxSockets: 8,
    ...(connection.ca !== undefined ? { ca: connection.ca } : {}),
    ...(connection.tlsServerName !== undefined ? { servername: connection.tlsServerName } : {}),
    rejectUnauthorized: connection.insecureSkipTlsVerify !== true,
    minVersion: "TLSv1.2",
  });
  return {
    get(token, path) {
      return new Promise<ViewerAnswer>((resolve) => {
        const req = httpsRequest(
          {
            agent,
            protocol: "https:",
            hostname: url.hostname.replace(/^\[|\]$/g, ""),
            port: url.port === "" ? 443 : Number(url.port),
            path: url.pathname.replace(/\/$/, "") + path,
            method: "GET",
            headers: { accept: "application/json", "user-agent": "bylaw-ui", authorization: `Bearer ${token}` },
          },
          (res) => {
            void readCapped(res, MAX_BODY_BYTES).then((text) => {
              const status = res.statusCode ?? 0;
              if (text === TOO_LARGE)
                return resolve({ ok: false, status: 0, message: `the answer is larger than ${MAX_BODY_BYTES} bytes` });
              if (text instanceof Error) return resolve({ ok: false, status: 0, message: text.message });
              resolve(answerOf(status, text));
            });
          },
        );
        req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
        req.on("error", (e) => resolve({ ok: false, status: 0, message: `GET ${path}: ${e.message}` }));
        req.end();
      });
    },
    close() {
      agent.destroy();
    },
  };
}

function answerOf(status: number, text: string): ViewerAnswer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, status, message: status === 200 ? "the API server's answer is not JSON" : `HTTP ${status}` };
  }
  if (status === 200) return { ok: true, body };
  const message = (body as { message?: unknown } | null)?.message;
  return { ok: false, status, message: typeof message === "string" ? message : `HTTP ${status}` };
}
