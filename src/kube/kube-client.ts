/**
 * A small typed client for the Kubernetes API over node:https (docs/adr/0009): JSON GETs (through
 * the request gate: coalesced and rate-limited), JSON POSTs and PATCHes (rate-limited, never
 * coalesced) and watch streams read line by line. Bodies are
 * capped; a status the server sends is an error value carrying its code and the server's message.
 */
import { Agent, request as httpsRequest } from "node:https";
import type { IncomingMessage } from "node:http";
import { RequestGate, type GateClock } from "./request-gate.js";
import type { KubeConnection } from "./types.js";
import { connectionAgent } from "./connection-agent.js";
import { readCapped, TOO_LARGE } from "../platform/http/index.js";

export class KubeError extends Error {
  constructor(
    message: string,
    /** The HTTP status, or 0 when no answer came (connection refused, timeout, bad JSON). */
    readonly status: number,
    /** The Status `reason` (NotFound, Forbidden, Expired, …) when the server sent one. */
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** A client's budget: requests a second, and how many may go at once after a quiet spell. */
export interface RateLimit {
  readonly qps: number;
  readonly burst: number;
}

interface KubeClientOptions {
  readonly connection: KubeConnection;
  /** Largest body a GET may return (default 256 MiB: a page of a list is far below). */
  readonly maxBodyBytes?: number;
  readonly qps?: number;
  readonly burst?: number;
  readonly clock?: GateClock;
  readonly timeoutMs?: number;
  /**
   * Act as this user (`Impersonate-User`), e.g. `system:serviceaccount:bylaw:bylaw-background-controller`:
   * the API server then grants exactly that account's permissions (for a ServiceAccount, with its
   * groups). The connection's own user needs `impersonate` on it.
   */
  readonly impersonate?: string;
}

/**
 * How a write is sent and what of the server's answer the caller needs: `object` (the default) the
 * object as stored; `metadata` only its metadata (the API server's PartialObjectMetadata, asked for
 * in the Accept header with plain JSON as the fallback, so a server that cannot transform the answer
 * sends the whole object); `none` nothing (the answer's status is still checked, its body not parsed).
 */
interface WriteOptions {
  /** Default application/json; e.g. application/merge-patch+json. */
  readonly contentType?: string;
  readonly answer?: "object" | "metadata" | "none";
}

/** The Accept header that asks the API server for an object's metadata only (falling back to the whole object). */
const ACCEPT_METADATA = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json";
/** A list's items as metadata only (PartialObjectMetadataList), plain JSON the fallback. */
const ACCEPT_METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json";

/**
 * How a GET or a watch is read: `maxBodyBytes` caps the answer; `metadataOnly` asks the API server
 * for the objects' metadata only (PartialObjectMetadata, as client-go's metadata informers do: a
 * reader that needs no more is not sent, nor parses, the rest; a server that cannot transform the
 * answer sends the whole objects).
 */
export interface ReadOptions {
  readonly maxBodyBytes?: number;
  readonly metadataOnly?: boolean;
}

/** One watch: `close()` ends it; `done` settles when the stream ends (resolves) or fails (rejects). */
export interface WatchStream {
  close(): void;
  readonly done: Promise<void>;
}

const systemGateClock: GateClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
};

/** A write as it is sent. */
interface Write {
  readonly method: string;
  readonly body: string;
  readonly contentType: string;
  readonly answer: NonNullable<WriteOptions["answer"]>;
}

/** Connections for requests (GET, writes): a watch never takes one of them (see `watchAgent`). */
const REQUEST_SOCKETS = 32;

export class KubeClient {
  private readonly agent: Agent;
  /**
   * Watches get their own connections, one each (HTTP/1.1 holds a connection for as long as the
   * stream lasts, up to the watch's timeoutSeconds). On the request agent, 32 watches (the cleanup
   * controller's TTL informers alone start one per deletable resource) took every connection, and
   * every later GET and status PATCH waited for a watch to end: policy status stopped being written.
   * The number of watches is bounded by the informers the process starts.
   */
  private readonly watchAgent: Agent;
  private readonly gate: RequestGate;
  private readonly url: URL;
  /** Clients made by `withRateLimit`, closed with this one. */
  private readonly children: KubeClient[] = [];
  /** Makes each non-GET request's gate key unique. */
  private unshared = 0;

  constructor(private readonly options: KubeClientOptions) {
    const c = options.connection;
    this.url = new URL(c.server);
    this.agent = connectionAgent(c, REQUEST_SOCKETS);
    this.watchAgent = connectionAgent(c, Infinity);
    this.gate = new RequestGate({
      qps: options.qps ?? 20,
      burst: options.burst ?? 40,
      clock: options.clock ?? systemGateClock,
    });
  }

  get origin(): string {
    return this.options.connection.origin;
  }

  /**
   * GET a path (already checked and encoded by the caller) as JSON. `maxBodyBytes` caps this answer
   * below the client's cap: reading stops there and the error's reason is `TooLarge` (a list page
   * read under what is left of a cache's budget).
   */
  getJson(path: string, read: ReadOptions = {}): Promise<unknown> {
    const cap = read.maxBodyBytes;
    const accept = read.metadataOnly === true ? ACCEPT_METADATA_LIST : "application/json";
    const key = `GET ${path}${cap === undefined ? "" : ` <=${cap}`}${read.metadataOnly === true ? " metadata" : ""}`;
    return this.gate.run(key, () => this.send(path, { cap, accept }));
  }

  /**
   * A write (PATCH, PUT, POST, DELETE) with a JSON body, e.g. a merge patch of a status
   * subresource or an apiCall POST as Bylaw's ServiceAccount; answers the server's object (or what
   * `options.answer` asks of it). Rate-limited like a GET but never coalesced: each call is one request.
   */
  sendJson(
    method: "PATCH" | "PUT" | "POST" | "DELETE",
    path: string,
    body: unknown,
    options: WriteOptions = {},
  ): Promise<unknown> {
    const write = {
      method,
      body: JSON.stringify(body),
      contentType: options.contentType ?? "application/json",
      answer: options.answer ?? "object",
    };
    return this.gate.run(`${method} ${path} ${++this.unshared}`, () =>
      this.send(path, { write, accept: write.answer === "metadata" ? ACCEPT_METADATA : "application/json" }),
    );
  }

  requestStats(): { readonly started: number; readonly coalesced: number } {
    return this.gate.stats();
  }

  /**
   * A watch: each JSON line goes to `onEvent`; the returned stream ends when the server closes it.
   * A line longer than `maxLineBytes` (default 8 MiB) ends the stream with an error whose reason is
   * `TooLarge`: the rest of the line is never buffered. `metadataOnly`: the events carry the objects'
   * metadata only (ReadOptions).
   */
  watch(
    path: string,
    onEvent: (event: unknown) => void,
    maxLineBytes = 8 * 1024 * 1024,
    read: Pick<ReadOptions, "metadataOnly"> = {},
  ): WatchStream {
    let req: ReturnType<typeof httpsRequest> | undefined;
    let closed = false;
    const accept = read.metadataOnly === true ? ACCEPT_METADATA : "application/json";
    const done = new Promise<void>((resolve, reject) => {
      req = this.open({ agent: this.watchAgent, path, accept }, (res) => {
        if (res.statusCode !== 200) {
          readBody(res, 1 << 20)
            .then((body) => reject(statusError(res.statusCode ?? 0, body)))
            .catch(reject);
          return;
        }
        let pending = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          pending += chunk;
          let nl: number;
          while ((nl = pending.indexOf("\n")) >= 0) {
            const line = pending.slice(0, nl);
            pending = pending.slice(nl + 1);
            if (line.trim() === "") continue;
            try {
              onEvent(JSON.parse(line));
            } catch (e) {
              res.destroy(new KubeError(`watch ${path}: a line is not JSON: ${(e as Error).message}`, 0));
              return;
            }
          }
          if (pending.length > maxLineBytes)
            res.destroy(new KubeError(`watch ${path}: an event is larger than ${maxLineBytes} bytes`, 0, "TooLarge"));
        });
        res.on("end", () => resolve());
        res.on("error", (e) => (closed ? resolve() : reject(e)));
        res.on("close", () => resolve());
      });
      req.on("error", (e) => (closed ? resolve() : reject(new KubeError(`watch ${path}: ${e.message}`, 0))));
      req.end();
    });
    return {
      close: () => {
        closed = true;
        req?.destroy();
      },
      done,
    };
  }

  /**
   * A client on the same connection with a request budget of its own: as Kyverno gives its reports
   * controller (300 requests a second) and its Events (1,000) clients of their own, a background
   * scan's writes neither wait behind admission's reads nor hold them up. Closed with this one.
   */
  withRateLimit(limit: RateLimit): KubeClient {
    const child = new KubeClient({ ...this.options, qps: limit.qps, burst: limit.burst });
    this.children.push(child);
    return child;
  }

  close(): void {
    this.agent.destroy();
    this.watchAgent.destroy();
    for (const child of this.children.splice(0)) child.close();
  }

  private send(
    path: string,
    how: { readonly write?: Write; readonly cap?: number | undefined; readonly accept: string },
  ): Promise<unknown> {
    const { write, cap } = how;
    const max = Math.min(cap ?? Infinity, this.options.maxBodyBytes ?? 256 * 1024 * 1024);
    const verb = write?.method ?? "GET";
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    return new Promise((resolve, reject) => {
      const req = this.open(
        { agent: this.agent, path, accept: how.accept, ...(write !== undefined ? { write } : {}) },
        (res) => {
          const code = res.statusCode ?? 0;
          const ok = code === 200 || (write !== undefined && code >= 200 && code <= 299);
          if (ok && write?.answer === "none") {
            // Nothing of the answer is read: the body is drained, never buffered or parsed.
            res.on("end", () => resolve(undefined));
            res.on("error", reject);
            res.resume();
            return;
          }
          readBody(res, max).then((body) => {
            if (!ok) return reject(statusError(code, body));
            try {
              resolve(JSON.parse(body));
            } catch (e) {
              reject(new KubeError(`${verb} ${path}: the answer is not JSON: ${(e as Error).message}`, 0));
            }
          }, reject);
        },
      );
      req.setTimeout(timeoutMs, () =>
        req.destroy(new KubeError(`${verb} ${path}: no answer within ${timeoutMs} ms`, 0)),
      );
      // The socket timeout above starts only once a connection is given: waiting for one is bounded too.
      const waiting = setTimeout(
        () =>
          req.destroy(
            new KubeError(
              `${verb} ${path}: no connection to the API server within ${timeoutMs} ms (all ${REQUEST_SOCKETS} are busy)`,
              0,
            ),
          ),
        timeoutMs,
      );
      req.once("socket", () => clearTimeout(waiting));
      req.once("close", () => clearTimeout(waiting));
      req.on("error", (e) => reject(e instanceof KubeError ? e : new KubeError(`${verb} ${path}: ${e.message}`, 0)));
      req.end(write?.body);
    });
  }

  private open(
    how: { readonly agent: Agent; readonly path: string; readonly accept: string; readonly write?: Write },
    onResponse: (res: IncomingMessage) => void,
  ): ReturnType<typeof httpsRequest> {
    const { agent, path, accept, write } = how;
    const token = this.options.connection.token?.();
    const body =
      write === undefined
        ? {}
        : { "content-type": write.contentType, "content-length": String(Buffer.byteLength(write.body)) };
    return httpsRequest(
      {
        agent,
        protocol: "https:",
        hostname: this.url.hostname.replace(/^\[|\]$/g, ""),
        port: this.url.port === "" ? 443 : Number(this.url.port),
        path: this.url.pathname.replace(/\/$/, "") + path,
        method: write?.method ?? "GET",
        headers: {
          accept,
          "user-agent": "bylaw",
          ...body,
          ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
          ...(this.options.impersonate !== undefined ? { "impersonate-user": this.options.impersonate } : {}),
        },
      },
      onResponse,
    );
  }
}

/** The body as text; rejects past `max` bytes or on the stream's error. */
async function readBody(res: IncomingMessage, max: number): Promise<string> {
  const body = await readCapped(res, max);
  if (body === TOO_LARGE) throw new KubeError(`the answer is larger than ${max} bytes`, 0, "TooLarge");
  if (body instanceof Error) throw body;
  return body;
}

/** The server's Status object as an error (its message, e.g. `pods "x" not found`; its reason, e.g. NotFound, Expired); the caller names the path. */
function statusError(status: number, body: string): KubeError {
  let message = `${status}`;
  let reason: string | undefined;
  try {
    const s = JSON.parse(body) as { message?: unknown; reason?: unknown };
    if (typeof s.message === "string") message = s.message;
    if (typeof s.reason === "string") reason = s.reason;
  } catch {
    // not a Status: keep the code
  }
  return new KubeError(message, status, reason);
}
