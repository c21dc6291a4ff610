/**
 * `bylaw serve` from the checkout as a plain process, for the cluster end-to-end tests: started with
 * a self-signed certificate on a free port, reviewed over HTTPS (trusting the printed caBundle),
 * stopped with SIGTERM. Everything it prints is kept, so a test can check what reached the logs.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:https";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually } from "./cluster-harness.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

export interface ServeProcess {
  readonly port: number;
  /** stdout and stderr so far. */
  output(): string;
  review(path: string, review: unknown): Promise<{ status: number; body: string }>;
  get(path: string): Promise<{ status: number; body: string }>;
  stop(): Promise<number | null>;
  /** Sends a signal (SIGKILL: a crash, no release of anything) and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

export interface StartServeOptions {
  /** The caller's args carry the TLS flags (e.g. --tls-secret); no --self-signed is added. */
  readonly ownTls?: boolean;
  /** The PEM CA bundle each request trusts, read at each request (default: the printed self-signed caBundle). */
  readonly trust?: () => string;
  /** More environment for the process (POD_NAMESPACE, POD_NAME), over this one's. */
  readonly env?: Record<string, string>;
}

export async function startServe(args: readonly string[], options: StartServeOptions = {}): Promise<ServeProcess> {
  const tls = options.ownTls === true ? [] : ["--self-signed", "--dns-name", "localhost"];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(repoRoot, "bin", "bylaw.js"),
      "serve",
      ...tls,
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--metrics-port",
      "off",
      ...args,
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      ...(options.env !== undefined ? { env: { ...process.env, ...options.env } } : {}),
    },
  );
  let out = "";
  child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const port = await eventually("bylaw serve to listen", 60_000, async () => {
    if (child.exitCode !== null) throw new Error(`bylaw serve exited ${child.exitCode}:\n${out}`);
    const m = /listening on https:\/\/[^:]+:(\d+)/.exec(out);
    return m === null ? undefined : Number(m[1]);
  });
  const ca = Buffer.from(/caBundle: (\S+)/.exec(out)?.[1] ?? "", "base64").toString("utf8");
  const call = (method: string, path: string, body?: string): Promise<{ status: number; body: string }> =>
    new Promise((done, fail) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          path,
          method,
          ca: options.trust?.() ?? ca,
          servername: "localhost",
          headers: body !== undefined ? { "content-type": "application/json" } : {},
        },
        (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString()));
          res.on("end", () => done({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on("error", fail);
      req.end(body);
    });
  return {
    port,
    output: () => out,
    review: (path, review) => call("POST", path, JSON.stringify(review)),
    get: (path) => call("GET", path),
    stop: async () => {
      child.kill("SIGTERM");
      return exited;
    },
    kill: async (signal) => {
      child.kill(signal);
      return exited;
    },
  };
}

let uid = 0;

/** An AdmissionReview of a CREATE of `object` (a Pod or a ConfigMap, core/v1). */
export function createReview(
  object: {
    kind: string;
    metadata: {
      name: string;
      namespace: string;
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    };
  } & Record<string, unknown>,
  user = { username: "tester", groups: ["system:authenticated"] },
): unknown {
  const resource = { group: "", version: "v1", resource: `${object.kind.toLowerCase()}s` };
  const kind = { group: "", version: "v1", kind: object.kind };
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `review-${++uid}`,
      kind,
      resource,
      requestKind: kind,
      requestResource: resource,
      name: object.metadata.name,
      namespace: object.metadata.namespace,
      operation: "CREATE",
      userInfo: user,
      object: { apiVersion: "v1", ...object },
      dryRun: false,
    },
  };
}

export interface Decision {
  readonly allowed: boolean;
  readonly message: string;
  /** The whole answer, as sent. */
  readonly raw: string;
}

export async function decide(serve: ServeProcess, review: unknown, path = "/validate/fail"): Promise<Decision> {
  const r = await serve.review(path, review);
  if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${r.body}`);
  const parsed = JSON.parse(r.body) as { response?: { allowed?: boolean; status?: { message?: string } } };
  return { allowed: parsed.response?.allowed === true, message: parsed.response?.status?.message ?? "", raw: r.body };
}
