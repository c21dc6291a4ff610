/** Start `bylaw serve` in-process on loopback (self-signed, port 0) and talk to it over real HTTPS. */
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { request } from "node:https";
import { after, before } from "node:test";
import { request as httpRequest } from "node:http";
import { Agent } from "node:https";
import { serveCommand } from "../../src/cli/commands/serve/command.js";
import { recordingIo } from "../support/fake-io.js";

export interface Running {
  readonly port: number;
  readonly metricsPort: number;
  readonly ca: string;
  readonly agent: Agent;
  post(path: string, body: string | Buffer): Promise<{ status: number; json: unknown; text: string }>;
  get(path: string): Promise<{ status: number; text: string }>;
  metrics(): Promise<string>;
  stop(): Promise<number>;
}

/**
 * Starts `bylaw serve` with `args` before the tests of the current suite (or file) and stops it after
 * them, expecting exit code 0; the function returned gives the running server.
 */
export function serveAroundTests(args: string[]): () => Running {
  let server: Running | undefined;
  before(async () => {
    server = await startServe(args);
  });
  after(async () => {
    assert.equal(await server?.stop(), 0);
  });
  return () => {
    if (server === undefined) throw new Error("bylaw serve has not started");
    return server;
  };
}

export async function startServe(args: string[]): Promise<Running> {
  const io = recordingIo();
  const signals = new EventEmitter();
  const done = serveCommand(
    [
      "--self-signed",
      "--dns-name",
      "localhost",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--metrics-port",
      "0",
      "--log-level",
      "silent",
      ...args,
    ],
    io,
    signals,
  );
  let port = 0;
  let metricsPort = 0;
  for (let i = 0; i < 200 && port === 0; i++) {
    const m = /listening on https:\/\/[^:]+:(\d+) \(metrics on :?(\d+|-)/.exec(io.stderr.join("\n"));
    if (m) {
      port = Number(m[1]);
      metricsPort = m[2] === "-" ? 0 : Number(m[2]);
    } else await new Promise((r) => setTimeout(r, 25));
  }
  if (port === 0) throw new Error(`bylaw serve did not start: ${io.stderr.join("\n")}`);
  const caLine = io.stdout.find((l) => l.startsWith("caBundle: ")) ?? "";
  const ca = Buffer.from(caLine.slice("caBundle: ".length), "base64").toString("utf8");
  const agent = new Agent({ ca, keepAlive: true, maxSockets: 16, servername: "localhost" });
  const send = (method: string, path: string, body?: string | Buffer): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          path,
          method,
          agent,
          servername: "localhost",
          headers:
            body !== undefined ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {},
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        },
      );
      req.on("error", reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  return {
    port,
    metricsPort,
    ca,
    agent,
    post: async (path, body) => {
      const r = await send("POST", path, body);
      let json: unknown = undefined;
      try {
        json = JSON.parse(r.text);
      } catch {
        json = undefined;
      }
      return { ...r, json };
    },
    get: (path) => send("GET", path),
    metrics: () =>
      new Promise((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port: metricsPort, path: "/metrics" }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        });
        req.on("error", reject);
        req.end();
      }),
    stop: async () => {
      agent.destroy();
      signals.emit("SIGTERM");
      return done;
    },
  };
}

export function review(request: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: { uid: "u-1", userInfo: { username: "dev", groups: ["system:authenticated"] }, ...request },
  });
}

/** An AdmissionReview of a Pod: a CREATE unless `fields` name another operation; `fields` give the rest. */
export function podReview(fields: Record<string, unknown>): string {
  return review({ kind: { group: "", version: "v1", kind: "Pod" }, operation: "CREATE", ...fields });
}
