/**
 * The report UI's HTTPS listener (`bylaw serve --ui-port`, docs/adr/0022-report-ui.md): the page,
 * its one script and style sheet (built into Bylaw by `npm run build`), `GET /api/reports` and
 * `/api/policy`, read with the viewer's bearer token and nothing else, and `/api/explain` (the "why"
 * panel: the policy and resource read with that token, evaluated by an engine without cluster reads). Read-only: GET and HEAD. Every answer
 * carries a strict Content-Security-Policy.
 */
import { createServer } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ViewerReads } from "../kube/viewer-reads.js";
import { BROWSER_BUNDLE } from "./browser-bundle.js";
import { PLAYGROUND_BUNDLE } from "../playground/playground-bundle.js";
import { PLAYGROUND_CSP, playgroundPage } from "../playground/playground-page.js";
import { readPolicy } from "./policy-details.js";
import { explainResult } from "./explain-result.js";
import type { Engine } from "../engine/index.js";
import { namespacesParam, readReports } from "./report-sources.js";

interface UiServerOptions {
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  readonly tls: { readonly cert: string; readonly key: string };
  readonly reads: ViewerReads;
  readonly onError?: (error: unknown) => void;
  /** The page's script and style (default: the bundle the build made). */
  readonly bundle?: { readonly script: string; readonly style: string } | undefined;
  /** The playground's script and style (default: the bundle the build made). */
  readonly playground?: { readonly script: string; readonly style: string } | undefined;
  /** The engine the "why" panel evaluates with: one that reads nothing from the cluster. Absent: /api/explain answers 503. */
  readonly engine?: Engine;
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
  const served: Served = {
    reads: options.reads,
    bundle: options.bundle ?? BROWSER_BUNDLE,
    playground: options.playground ?? PLAYGROUND_BUNDLE,
    engine: options.engine,
    explaining: false,
  };
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
      void serve(served, req, res).catch((e: unknown) => {
        report(e);
        if (!res.headersSent) send(res, json(500, "the UI failed to answer"));
      }),
  );
  server.on("error", report);
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

interface Served {
  readonly reads: ViewerReads;
  readonly bundle: { readonly script: string; readonly style: string } | undefined;
  readonly playground: { readonly script: string; readonly style: string } | undefined;
  readonly engine: Engine | undefined;
  /** An explanation is being worked out: the next waits its turn (429), so the panel never queues work in the serve process. */
  explaining: boolean;
}

interface Answer {
  readonly status: number;
  readonly type: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const BEARER_CHALLENGE = { "www-authenticate": "Bearer" };

async function serve(served: Served, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD")
    return send(res, { ...json(405, "the report UI is read-only: GET only"), headers: { allow: "GET, HEAD" } });
  const url = req.url ?? "/";
  const mark = url.indexOf("?");
  const path = mark === -1 ? url : url.slice(0, mark);
  const query = new URLSearchParams(mark === -1 ? "" : url.slice(mark + 1));
  if (path === "/api/reports" || path === "/api/policy" || path === "/api/explain") {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined)
      return send(res, {
        ...json(401, "a bearer token is needed: the UI reads reports with the viewer's own Kubernetes identity"),
        headers: BEARER_CHALLENGE,
      });
    const answer =
      path === "/api/reports"
        ? await apiReports(served.reads, token, query)
        : path === "/api/policy"
          ? await apiPolicy(served.reads, token, query)
          : await apiExplain(served, token, query);
    return send(res, answer);
  }
  send(res, path.startsWith("/playground") ? playgroundAsset(served.playground, path) : asset(served.bundle, path));
}

/** The playground (src/playground): its page, and the engine bundled for the browser; it asks the server for nothing else. */
function playgroundAsset(bundle: Served["playground"], path: string): Answer {
  if (bundle === undefined)
    return { status: 503, type: TEXT, body: "the playground was not built into this Bylaw: run npm run build\n" };
  const headers = { "content-security-policy": `${PLAYGROUND_CSP}; frame-ancestors 'none'` };
  if (path === "/playground" || path === "/playground/")
    return { status: 200, type: "text/html; charset=utf-8", body: playgroundPage("/"), headers };
  if (path === "/playground.js") return { status: 200, type: "text/javascript; charset=utf-8", body: bundle.script };
  if (path === "/playground.css") return { status: 200, type: "text/css; charset=utf-8", body: bundle.style };
  return json(404, `not found: ${path}`);
}

function asset(bundle: Served["bundle"], path: string): Answer {
  if (bundle === undefined)
    return { status: 503, type: TEXT, body: "the UI bundle was not built into this Bylaw: run npm run build\n" };
  if (path === "/" || path === "/index.html") return { status: 200, type: "text/html; charset=utf-8", body: PAGE };
  if (path === "/app.js") return { status: 200, type: "text/javascript; charset=utf-8", body: bundle.script };
  if (path === "/app.css") return { status: 200, type: "text/css; charset=utf-8", body: bundle.style };
  // Browsers ask for it unbidden: no icon, and no 404 in the console.
  if (path === "/favicon.ico") return { status: 204, type: TEXT, body: "" };
  return json(404, `not found: ${path}`);
}

/** `GET /api/reports[?namespaces=a,b]`: every report the viewer may list (namespace by namespace where asked). */
async function apiReports(reads: ViewerReads, token: string, query: URLSearchParams): Promise<Answer> {
  const namespaces = namespacesParam(query.get("namespaces"));
  if (!namespaces.ok) return json(400, namespaces.error);
  const answer = await readReports(reads, token, { namespaces: namespaces.namespaces });
  if (answer.sources.some((s) => s.state === "unauthorized")) return refusedToken();
  return ok(answer);
}

/** `GET /api/policy?name=NAME` (`NAMESPACE/NAME` for a namespaced one): the policy's status and text. */
async function apiPolicy(reads: ViewerReads, token: string, query: URLSearchParams): Promise<Answer> {
  const answer = await readPolicy(reads, token, query.get("name") ?? "");
  if (!answer.ok) return answer.status === 401 ? refusedToken() : json(answer.status, answer.error);
  return ok({ policies: answer.policies, kinds: answer.kinds });
}

/** `GET /api/explain?policy=…&apiVersion=…&kind=…&namespace=…&name=…`: why one result is what it is (explain-result.ts). */
async function apiExplain(served: Served, token: string, query: URLSearchParams): Promise<Answer> {
  if (served.engine === undefined) return json(503, "this UI was started without an engine for explanations");
  if (served.explaining)
    return {
      ...json(429, "another explanation is being worked out: try again in a moment"),
      headers: { "retry-after": "1" },
    };
  served.explaining = true;
  try {
    const answer = await explainResult({ reads: served.reads, engine: served.engine }, token, query);
    if (!answer.ok) return answer.status === 401 ? refusedToken() : json(answer.status, answer.error);
    return ok({ explanations: answer.explanations, text: answer.text, notes: answer.notes });
  } finally {
    served.explaining = false;
  }
}

function refusedToken(): Answer {
  return { ...json(401, "the API server did not accept this token"), headers: BEARER_CHALLENGE };
}

function ok(body: unknown): Answer {
  return { status: 200, type: JSON_TYPE, body: JSON.stringify(body), headers: { "cache-control": "no-store" } };
}

/** The token of `Authorization: Bearer TOKEN`; undefined for anything else. */
function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer +([^\s]+)\s*$/i.exec(header ?? "");
  return m?.[1];
}

const TEXT = "text/plain; charset=utf-8";
const JSON_TYPE = "application/json";

/** `{"error": message}` with `status`. */
function json(status: number, message: string): Answer {
  return { status, type: JSON_TYPE, body: JSON.stringify({ error: message }) };
}

function send(res: ServerResponse, a: Answer): void {
  if (res.destroyed) return;
  res.writeHead(a.status, {
    ...SECURITY_HEADERS,
    ...a.headers,
    "content-type": a.type,
    "content-length": String(Buffer.byteLength(a.body, "utf8")),
  });
  res.end(res.req.method === "HEAD" ? undefined : a.body, "utf8");
}
