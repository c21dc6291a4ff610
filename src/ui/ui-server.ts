/**
 * The report UI's HTTPS listener (`bylaw serve --ui-port`, docs/adr/0021-report-ui.md): the page,
 * its one script and style sheet (built into Bylaw by `npm run build`), and `GET /api/reports`,
 * read with the viewer's bearer token and nothing else. Read-only: GET and HEAD. Every answer
 * carries a strict Content-Security-Policy.
 */
import { createServer } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ViewerReads } from "../kube/viewer-reads.js";
import { BROWSER_BUNDLE } from "./browser-bundle.js";
import { readReports } from "./report-sources.js";

export interface UiServerOptions {
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  readonly tls: { readonly cert: string; readonly key: string };
  readonly reads: ViewerReads;
  readonly onError?: (error: unknown) => void;
  /** The page's script and style (default: the bundle the build made). */
  readonly bundle?: { readonly script: string; readonly style: string } | undefined;
}

export interface UiServer {
  listen(): Promise<{ port: number }>;
  setTls(tls: { readonly cert: string; readonly key: string }): void;
  close(): Promise<void>;
}

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bylaw policy reports</title>
<link rel="stylesheet" href="/app.css">
<script defer src="/app.js"></script>
</head>
<body><main id="app"><p>Loading…</p></main></body>
</html>
`;

export function createUiServer(options: UiServerOptions): UiServer {
  const report = (e: unknown): void => {
    try {
      options.onError?.(e);
    } catch {
      // keep serving
    }
  };
  const bundle = options.bundle ?? BROWSER_BUNDLE;
  const server = createServer(
    {
      cert: options.tls.cert,
      key: options.tls.key,
      minVersion: "TLSv1.2",
      requestTimeout: 30_000,
      headersTimeout: 10_000,
      keepAliveTimeout: 65_000,
    },
    (req, res) =>
      void serve(req, res).catch((e: unknown) => {
        report(e);
        if (!res.headersSent && !res.destroyed)
          send(res, 500, "application/json", errorBody("the UI failed to answer"));
      }),
  );
  server.on("error", report);

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "GET" && req.method !== "HEAD")
      return send(res, 405, "application/json", errorBody("the report UI is read-only: GET only"), {
        allow: "GET, HEAD",
      });
    const url = req.url ?? "/";
    const mark = url.indexOf("?");
    const path = mark === -1 ? url : url.slice(0, mark);
    if (path === "/api/reports") return apiReports(req, res);
    if (bundle === undefined)
      return send(
        res,
        503,
        "text/plain; charset=utf-8",
        "the UI bundle was not built into this Bylaw: run npm run build\n",
      );
    if (path === "/" || path === "/index.html") return send(res, 200, "text/html; charset=utf-8", PAGE);
    if (path === "/app.js") return send(res, 200, "text/javascript; charset=utf-8", bundle.script);
    if (path === "/app.css") return send(res, 200, "text/css; charset=utf-8", bundle.style);
    return send(res, 404, "application/json", errorBody(`not found: ${path}`));
  }

  async function apiReports(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined)
      return send(
        res,
        401,
        "application/json",
        errorBody("a bearer token is needed: the UI reads reports with the viewer's own Kubernetes identity"),
        { "www-authenticate": "Bearer" },
      );
    const answer = await readReports(options.reads, token);
    if (answer.sources.some((s) => s.state === "unauthorized"))
      return send(res, 401, "application/json", errorBody("the API server did not accept this token"), {
        "www-authenticate": "Bearer",
      });
    return send(res, 200, "application/json", JSON.stringify(answer), { "cache-control": "no-store" });
  }

  return {
    listen() {
      return new Promise((resolve, reject) => {
        const onError = (e: Error): void => reject(e);
        server.once("error", onError);
        server.listen(options.port, options.host, () => {
          server.removeListener("error", onError);
          resolve({ port: (server.address() as AddressInfo).port });
        });
      });
    },
    setTls(tls) {
      server.setSecureContext({ cert: tls.cert, key: tls.key });
    },
    close() {
      return new Promise((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The token of `Authorization: Bearer TOKEN`; undefined for anything else. */
function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer +([^\s]+)\s*$/i.exec(header ?? "");
  return m?.[1];
}

function errorBody(message: string): string {
  return JSON.stringify({ error: message });
}

function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    "content-type": contentType,
    "content-length": String(Buffer.byteLength(body, "utf8")),
  });
  res.end(res.req.method === "HEAD" ? undefined : body, "utf8");
}
