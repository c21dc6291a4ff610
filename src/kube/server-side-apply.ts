/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`, `fieldManager`, `force`) of one
 * object, for the few objects Bylaw owns (its webhook configurations). JSON is YAML, so the object is
 * sent as JSON. The server's Status message is the error; on success the answer is the object as stored
 * (what registration confirms its webhooks from).
 */
import { Agent, request as httpsRequest } from "node:https";
import { KubeError } from "./kube-client.js";
import type { KubeConnection } from "./types.js";
import { connectionAgent } from "./connection-agent.js";

/** The largest answer read (an object the API server stores is at most ~1.5 MiB in etcd). */
const MAX_ANSWER_BYTES = 4 << 20;

/** The stored object of a successful answer; undefined when it was cut or is not JSON. */
function storedObject(chunks: readonly Buffer[], size: number): unknown {
  if (size > MAX_ANSWER_BYTES) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}

interface ApplyOptions {
  readonly fieldManager: string;
  readonly timeoutMs?: number;
}

export class ServerSideApply {
  private readonly agent: Agent;
  private readonly url: URL;

  constructor(
    private readonly connection: KubeConnection,
    private readonly options: ApplyOptions,
  ) {
    const c = connection;
    this.url = new URL(c.server);
    this.agent = connectionAgent(c, 4);
  }

  /**
   * Applies `object` at `path` (e.g. `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/NAME`);
   * resolves with the object the API server stored (or, with `dryRun`, would store); rejects with a KubeError.
   */
  apply(path: string, object: unknown, options: { readonly dryRun?: boolean } = {}): Promise<unknown> {
    const query = `?fieldManager=${encodeURIComponent(this.options.fieldManager)}&force=true${options.dryRun === true ? "&dryRun=All" : ""}`;
    const body = JSON.stringify(object);
    const token = this.connection.token?.();
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        {
          agent: this.agent,
          protocol: "https:",
          hostname: this.url.hostname.replace(/^\[|\]$/g, ""),
          port: this.url.port === "" ? 443 : Number(this.url.port),
          path: this.url.pathname.replace(/\/$/, "") + path + query,
          method: "PATCH",
          headers: {
            accept: "application/json",
            "content-type": "application/apply-patch+yaml",
            "content-length": Buffer.byteLength(body),
            "user-agent": "bylaw",
            ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size <= MAX_ANSWER_BYTES) chunks.push(c);
          });
          res.on("error", (e) => reject(new KubeError(`apply ${path}: ${e.message}`, 0)));
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) return resolve(storedObject(chunks, size));
            let message = `HTTP ${status}`;
            let reason: string | undefined;
            try {
              const s = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { message?: unknown; reason?: unknown };
              if (typeof s.message === "string") message = s.message;
              if (typeof s.reason === "string") reason = s.reason;
            } catch {
              // not a Status: keep the code
            }
            reject(new KubeError(`apply ${path}: ${message}`, status, reason));
          });
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new KubeError(`apply ${path}: no answer within ${timeoutMs} ms`, 0)));
      req.on("error", (e) => reject(e instanceof KubeError ? e : new KubeError(`apply ${path}: ${e.message}`, 0)));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
