/**
 * A raw HTTPS client to the API server for the cluster bench: the cluster-admin certificate that
 * `scripts/cluster.sh up` wrote (DIR/pki), one keep-alive agent, and the wall time of each request.
 * Used to create objects fast and to time creates finer than the API server's histogram buckets.
 */
import { readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { join } from "node:path";

export interface ApiResponse {
  readonly status: number;
  readonly body: string;
  /** Wall time of the request, from send to the last byte, in ms. */
  readonly ms: number;
}

export interface ApiClient {
  readonly server: string;
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<ApiResponse>;
  close(): void;
}

/** The API server's URL as DIR/kubeconfig names it. */
export function serverUrl(dir: string): string {
  const m = /server:\s*(\S+)/.exec(readFileSync(join(dir, "kubeconfig"), "utf8"));
  if (m?.[1] === undefined) throw new Error(`no server: line in ${join(dir, "kubeconfig")}`);
  return m[1];
}

export function apiClient(dir: string, maxSockets = 16): ApiClient {
  const server = serverUrl(dir);
  const pki = join(dir, "pki");
  const agent = new Agent({
    keepAlive: true,
    maxSockets,
    ca: readFileSync(join(pki, "ca.crt")),
    cert: readFileSync(join(pki, "admin.crt")),
    key: readFileSync(join(pki, "admin.key")),
  });
  const call = (method: string, path: string, body?: unknown, contentType = "application/json"): Promise<ApiResponse> =>
    new Promise((done, fail) => {
      const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
      const t0 = performance.now();
      const req = request(
        new URL(path, server),
        {
          method,
          agent,
          headers: {
            accept: "application/json",
            ...(payload !== undefined
              ? { "content-type": contentType, "content-length": Buffer.byteLength(payload) }
              : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            done({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString("utf8"),
              ms: performance.now() - t0,
            }),
          );
          res.on("error", fail);
        },
      );
      req.on("error", fail);
      req.end(payload);
    });
  return { server, call, close: () => agent.destroy() };
}
