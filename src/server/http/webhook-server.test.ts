import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { Agent } from "node:https";
import { connect } from "node:tls";
import { setTimeout as sleep } from "node:timers/promises";
import { selfSignedCertificate } from "../tls/self-signed.js";
import { send } from "../../../test/support/https-send.js";
import type { HandlerResult, RouteHandler, WebhookServer, WebhookServerOptions } from "./types.js";
import { createWebhookServer } from "./webhook-server.js";

const first = selfSignedCertificate({ dnsNames: ["webhook.test.svc"], now: new Date() });
const second = selfSignedCertificate({ dnsNames: ["webhook.test.svc"], now: new Date() });
const CAS = [first.caCert, second.caCert];

const echo: RouteHandler = (body) => ({ status: 200, body: { echo: body } });

interface Started {
  server: WebhookServer;
  port: number;
  errors: unknown[];
  requests: [string, string, number, number][];
}

const running: WebhookServer[] = [];
after(() => Promise.all(running.map((s) => s.close({ graceMs: 0 }))));

async function start(
  overrides: Partial<WebhookServerOptions> = {},
  routes: Record<string, RouteHandler> = {},
): Promise<Started> {
  const errors: unknown[] = [];
  const requests: [string, string, number, number][] = [];
  const server = createWebhookServer({
    tls: { cert: first.cert, key: first.key },
    host: "127.0.0.1",
    port: 0,
    routes: new Map(Object.entries({ "/validate/fail": echo, ...routes })),
    maxBodyBytes: 1024,
    health: { live: () => true, ready: () => ({ ok: true }) },
    onRequest: (method, path, status, seconds) => requests.push([method, path, status, seconds]),
    onError: (e) => errors.push(e),
    ...overrides,
  });
  running.push(server);
  const { port } = await server.listen();
  return { server, port, errors, requests };
}

describe("createWebhookServer: routes and errors", async () => {
  const s = await start(
    {},
    {
      "/reject": () => ({ status: 400, body: { error: "request is missing" } }),
      "/throws": () => {
        throw new Error("boom");
      },
      "/rejects": () => Promise.reject(new Error("async boom")),
      "/async": async (body) => ({ status: 200, body: { later: body } }),
      "/bad-result": () => ({ status: 302, body: {} }) as unknown as HandlerResult,
    },
  );
  const call = (req: Parameters<typeof send>[2]) => send(s.port, CAS, req);
  const json = { "content-type": "application/json" };

  test("a POST to a route answers the handler's JSON with a content-length; the query string is ignored", async () => {
    const r = await call({ path: "/validate/fail?timeout=10s", headers: json, body: '{"kind":"AdmissionReview"}' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { echo: { kind: "AdmissionReview" } });
    assert.equal(r.headers["content-type"], "application/json");
    assert.equal(r.headers["content-length"], String(Buffer.byteLength(r.body)));
    assert.deepEqual(s.requests.at(-1)?.slice(0, 3), ["POST", "/validate/fail", 200]);
    assert.ok((s.requests.at(-1)?.[3] ?? -1) >= 0);
  });

  test("async handlers, a handler's 400, and a missing content-type (accepted)", async () => {
    assert.deepEqual((await call({ path: "/async", headers: json, body: "[1]" })).json, { later: [1] });
    const r = await call({ path: "/reject", body: "{}" });
    assert.equal(r.status, 400);
    assert.deepEqual(r.json, { error: "request is missing" });
  });

  const refusals: [string, Parameters<typeof send>[2], number, RegExp, string?][] = [
    [
      "malformed JSON gives the position",
      { path: "/validate/fail", headers: json, body: '{"a":\n }' },
      400,
      /not valid JSON: unexpected '}' where a value was expected at line 2, column 2 \(offset 7\)/,
    ],
    ["an empty body", { path: "/validate/fail", headers: json, body: "" }, 400, /body is empty/],
    ["an unknown path", { path: "/nope", headers: json, body: "{}" }, 404, /no webhook is served at \/nope/],
    ["GET on a route", { method: "GET", path: "/validate/fail" }, 405, /accepts POST only/, "POST"],
    ["POST on a health path", { path: "/health/readiness", body: "{}" }, 405, /accepts GET only/, "GET, HEAD"],
    [
      "a non-JSON content type",
      { path: "/validate/fail", headers: { "content-type": "text/plain" }, body: "{}" },
      415,
      /must be application\/json, not text\/plain/,
    ],
    [
      "a compressed body",
      { path: "/validate/fail", headers: { ...json, "content-encoding": "gzip" }, body: "{}" },
      415,
      /content-encoding gzip/,
    ],
    [
      "a declared oversized body",
      { path: "/validate/fail", headers: json, body: `[${"1,".repeat(2000)}1]` },
      413,
      /is 4003 bytes, over the limit of 1024 bytes/,
    ],
    [
      "a chunked oversized body",
      { path: "/validate/fail", headers: json, body: ["[", "1,".repeat(400), "1,".repeat(400), "1]"] },
      413,
      /more than the limit of 1024 bytes/,
    ],
  ];
  for (const [name, req, status, message, allow] of refusals) {
    test(`refuses ${name} with ${status}`, async () => {
      const r = await call(req);
      assert.equal(r.status, status);
      assert.match((r.json as { error: string }).error, message);
      if (allow !== undefined) assert.equal(r.headers.allow, allow);
    });
  }

  test("an unknown path is reported as `unmatched`, so it is safe as a metric label", async () => {
    await call({ path: "/some/random/path", body: "{}" });
    assert.deepEqual(s.requests.at(-1)?.slice(0, 3), ["POST", "unmatched", 404]);
  });

  test("after a 413 the same keep-alive connection answers the next request", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = await call({ path: "/validate/fail", headers: json, body: `"${"x".repeat(3000)}"`, agent });
      assert.equal(big.status, 413);
      const next = await call({ path: "/validate/fail", headers: json, body: "1", agent });
      assert.equal(next.status, 200);
      assert.equal(next.reused, true);
    } finally {
      agent.destroy();
    }
  });

  test("a throwing or rejecting handler gives a 500, is reported, and the server keeps serving", async () => {
    const thrown = await call({ path: "/throws", headers: json, body: "{}" });
    assert.equal(thrown.status, 500);
    assert.deepEqual(thrown.json, { error: "internal error: boom" });
    const rejected = await call({ path: "/rejects", headers: json, body: "{}" });
    assert.deepEqual(rejected.json, { error: "internal error: async boom" });
    const bad = await call({ path: "/bad-result", headers: json, body: "{}" });
    assert.equal(bad.status, 500);
    assert.deepEqual(s.errors.map((e) => (e as Error).message).slice(-3), [
      "boom",
      "async boom",
      "the handler for /bad-result returned an unusable result (status 302)",
    ]);
    assert.equal((await call({ path: "/validate/fail", headers: json, body: "{}" })).status, 200);
  });
});

describe("createWebhookServer: concurrent reviews", () => {
  test("reviews arriving together are each answered with their own result, in batches of batchSize", async () => {
    const seen: number[] = [];
    const s = await start(
      { batchSize: 3 },
      {
        "/validate/fail": (body) => {
          const n = (body as { n: number }).n;
          seen.push(n);
          return n % 5 === 4 ? { status: 400, body: { error: `review ${n} is bad` } } : { status: 200, body: { n } };
        },
      },
    );
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        send(s.port, CAS, {
          path: "/validate/fail",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ n }),
        }),
      ),
    );
    replies.forEach((r, n) => {
      if (n % 5 === 4) assert.deepEqual([r.status, r.json], [400, { error: `review ${n} is bad` }]);
      else assert.deepEqual([r.status, r.json], [200, { n }]);
    });
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, n) => n),
      "every review was handled once",
    );
    assert.equal(s.requests.length, 20);
    assert.deepEqual(s.errors, []);
  });

  test("a batch route gets the bodies that arrive together in calls of at most batchSize; each answer goes to its own request", async () => {
    const calls: number[][] = [];
    const s = await start({
      batchSize: 4,
      batchRoutes: new Map([
        [
          "/validate/fail",
          (bodies: readonly unknown[]) => {
            const ns = bodies.map((b) => (b as { n: number }).n);
            calls.push(ns);
            return ns.map((n) => ({ status: 200 as const, body: { n, batch: ns.length } }));
          },
        ],
      ]),
    });
    const json = { "content-type": "application/json" };
    const replies = await Promise.all(
      Array.from({ length: 24 }, (_, n) =>
        send(s.port, CAS, {
          path: "/validate/fail",
          headers: json,
          body: n === 7 ? "{not json" : JSON.stringify({ n }),
        }),
      ),
    );
    replies.forEach((r, n) => {
      if (n === 7) {
        assert.equal(r.status, 400);
        assert.match((r.json as { error: string }).error, /the request body is not valid JSON/);
      } else {
        assert.equal(r.status, 200);
        assert.equal((r.json as { n: number }).n, n);
      }
    });
    assert.deepEqual(
      calls.flat().sort((a, b) => a - b),
      Array.from({ length: 24 }, (_, n) => n).filter((n) => n !== 7),
      "every valid body was handed over once",
    );
    assert.ok(
      calls.every((c) => c.length >= 1 && c.length <= 4),
      `calls of 1 to 4 bodies: ${JSON.stringify(calls)}`,
    );
  });

  test("a batch handler that throws answers its requests with 500 and the server keeps serving", async () => {
    let fail = true;
    const s = await start({
      batchRoutes: new Map([
        [
          "/validate/fail",
          (bodies: readonly unknown[]) => {
            if (fail) throw new Error("batch blew up");
            return bodies.map(() => ({ status: 200 as const, body: { ok: true } }));
          },
        ],
      ]),
    });
    const json = { "content-type": "application/json" };
    const r = await send(s.port, CAS, { path: "/validate/fail", headers: json, body: "{}" });
    assert.deepEqual([r.status, r.json], [500, { error: "internal error: batch blew up" }]);
    fail = false;
    const again = await send(s.port, CAS, { path: "/validate/fail", headers: json, body: "{}" });
    assert.deepEqual([again.status, again.json], [200, { ok: true }]);
  });
});

describe("createWebhookServer: health", () => {
  test("liveness and readiness answer 200, or 503 with the reason", async () => {
    let ready: { ok: boolean; reason?: string } = { ok: false, reason: "policies not loaded: bad.yaml line 3" };
    let live = true;
    const s = await start({ health: { live: () => live, ready: () => ready } });
    const get = (path: string) => send(s.port, CAS, { method: "GET", path });
    assert.deepEqual(await get("/health/readiness").then((r) => [r.status, r.json]), [
      503,
      { ready: false, reason: "policies not loaded: bad.yaml line 3" },
    ]);
    ready = { ok: true };
    assert.deepEqual(await get("/health/readiness").then((r) => [r.status, r.json]), [200, { ready: true }]);
    assert.equal((await get("/health/liveness")).status, 200);
    live = false;
    assert.equal((await get("/health/liveness")).status, 503);
  });
});

describe("createWebhookServer: TLS", () => {
  test("setTls serves the new certificate to new connections", async () => {
    const s = await start();
    const serialOf = (pem: string) => new X509Certificate(pem).serialNumber.toUpperCase();
    const before = await send(s.port, CAS, { path: "/validate/fail", body: "1" });
    assert.equal(before.serial.toUpperCase(), serialOf(first.cert));
    s.server.setTls({ cert: second.cert, key: second.key });
    const afterSwap = await send(s.port, CAS, { path: "/validate/fail", body: "1" });
    assert.equal(afterSwap.serial.toUpperCase(), serialOf(second.cert));
    // A client that trusts only the old CA can no longer connect.
    await assert.rejects(send(s.port, first.caCert, { path: "/validate/fail", body: "1" }));
  });

  test("a client that sends its headers too slowly is cut off", async () => {
    const s = await start({ requestTimeoutMs: 300, headersTimeoutMs: 300 });
    const socket = connect({ host: "127.0.0.1", port: s.port, ca: CAS, servername: "webhook.test.svc" });
    await new Promise<void>((resolve) => socket.once("secureConnect", () => resolve()));
    socket.write("POST /validate/fail HTTP/1.1\r\nHost: x\r\n"); // never finishes the headers
    const startedAt = Date.now();
    let received = "";
    socket.on("data", (c: Buffer) => (received += c.toString()));
    await new Promise<void>((resolve) => socket.once("close", () => resolve()));
    assert.ok(Date.now() - startedAt < 3000, "closed within the timeout plus the checking interval");
    assert.match(received, /^HTTP\/1\.1 408/);
  });

  test("a client that sends its body too slowly is cut off", async () => {
    const s = await start({ requestTimeoutMs: 400, headersTimeoutMs: 200 });
    const socket = connect({ host: "127.0.0.1", port: s.port, ca: CAS, servername: "webhook.test.svc" });
    await new Promise<void>((resolve) => socket.once("secureConnect", () => resolve()));
    socket.write(
      "POST /validate/fail HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    );
    const startedAt = Date.now();
    socket.resume();
    await new Promise<void>((resolve) => socket.once("close", () => resolve()));
    assert.ok(Date.now() - startedAt < 3000);
  });
});

describe("createWebhookServer: graceful close", () => {
  test("an in-flight request completes, with Connection: close; new connections are refused", async () => {
    let release = (): void => {};
    let entered = (): void => {};
    const handlerEntered = new Promise<void>((r) => (entered = r));
    const s = await start(
      {},
      {
        "/slow": async (body) => {
          entered();
          await new Promise<void>((r) => (release = r));
          return { status: 200, body };
        },
      },
    );
    const reply = send(s.port, CAS, { path: "/slow", body: '"done"' });
    await handlerEntered;
    const closed = s.server.close({ graceMs: 5000 });
    await sleep(100);
    release();
    const r = await reply;
    assert.equal(r.status, 200);
    assert.equal(r.json, "done");
    assert.equal(r.headers.connection, "close");
    await closed;
    await assert.rejects(send(s.port, CAS, { path: "/validate/fail", body: "1" }), /ECONNREFUSED/);
  });

  test("idle keep-alive connections do not hold close() up", async () => {
    const s = await start();
    const agent = new Agent({ keepAlive: true });
    try {
      assert.equal((await send(s.port, CAS, { path: "/validate/fail", body: "1", agent })).status, 200);
      const t0 = Date.now();
      await s.server.close({ graceMs: 10_000 });
      assert.ok(Date.now() - t0 < 1000, `close took ${Date.now() - t0} ms`);
    } finally {
      agent.destroy();
    }
  });

  test("a request still running when the grace period ends is cut off, and close() resolves", async () => {
    let entered = (): void => {};
    const handlerEntered = new Promise<void>((r) => (entered = r));
    const s = await start(
      {},
      {
        "/stuck": () => {
          entered();
          return new Promise<HandlerResult>(() => {});
        },
      },
    );
    const reply = send(s.port, CAS, { path: "/stuck", body: "1" });
    await handlerEntered;
    const t0 = Date.now();
    await s.server.close({ graceMs: 200 });
    assert.ok(Date.now() - t0 < 2000);
    await assert.rejects(reply, /socket hang up|ECONNRESET/);
  });
});
