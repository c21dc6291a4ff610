/** What the webhook holds at once: connections, request bytes in flight, and shedding under memory pressure. */
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import { connect, type TLSSocket } from "node:tls";
import { selfSignedCertificate } from "../tls/self-signed.js";
import { send } from "../../../test/support/https-send.js";
import type { RouteHandler, WebhookServer, WebhookServerOptions } from "./types.js";
import { createWebhookServer } from "./webhook-server.js";

const cert = selfSignedCertificate({ dnsNames: ["webhook.test.svc"], now: new Date() });
const json = { "content-type": "application/json" };
const running: WebhookServer[] = [];
after(() => Promise.all(running.map((s) => s.close({ graceMs: 0 }))));

async function start(
  overrides: Partial<WebhookServerOptions>,
  handler: RouteHandler = (b) => ({ status: 200, body: { ok: b !== null } }),
): Promise<number> {
  const server = createWebhookServer({
    tls: { cert: cert.cert, key: cert.key },
    host: "127.0.0.1",
    port: 0,
    routes: new Map([["/validate/fail", handler]]),
    health: { live: () => true, ready: () => ({ ok: true }) },
    ...overrides,
  });
  running.push(server);
  return (await server.listen()).port;
}

const body = (bytes: number): string => `"${"x".repeat(bytes - 2)}"`;

describe("in-flight budget", () => {
  test("a review that would pass the budget while others are held is answered 503 without its body; the budget comes back after each answer", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const port = await start({ maxInFlightBytes: 1000, maxBodyBytes: 2000 }, async () => {
      await held;
      return { status: 200, body: { ok: true } };
    });
    const first = send(port, cert.caCert, { path: "/validate/fail", headers: json, body: body(800) });
    await new Promise((r) => setTimeout(r, 100)); // the first body is read and held
    const second = await send(port, cert.caCert, { path: "/validate/fail", headers: json, body: body(300) });
    assert.equal(second.status, 503);
    assert.match((second.json as { error: string }).error, /limit of 1000 bytes of requests in flight/);
    assert.equal(second.headers["retry-after"], "1");
    const chunked = await send(port, cert.caCert, {
      path: "/validate/fail",
      headers: json,
      body: [body(150), " ".repeat(150)],
    });
    assert.equal(chunked.status, 503, "a chunked body is counted as it arrives");
    release();
    assert.equal((await first).status, 200);
    const after = await send(port, cert.caCert, { path: "/validate/fail", headers: json, body: body(800) });
    assert.equal(after.status, 200, "the first review's bytes were given back");
  });

  test("with nothing in flight, a body bigger than the budget (within the body cap) is still served", async () => {
    const port = await start({ maxInFlightBytes: 100, maxBodyBytes: 5000 });
    assert.equal(
      (await send(port, cert.caCert, { path: "/validate/fail", headers: json, body: body(4000) })).status,
      200,
    );
  });
});

describe("JSON limits", () => {
  test("a body over the depth, entries or values limit is answered 413 with the reason and never reaches the handler; one within is served", async () => {
    let handled = 0;
    const limits = { maxDepth: 4, maxEntries: 5, maxValues: 20 };
    const handler: RouteHandler = () => {
      handled++;
      return { status: 200, body: { ok: true } };
    };
    const single = await start({ jsonLimits: limits }, handler);
    const batched = await start(
      { jsonLimits: limits, batchRoutes: new Map([["/validate/fail", (bodies) => bodies.map(() => handler({}))]]) },
      handler,
    );
    for (const port of [single, batched]) {
      for (const [text, reason] of [
        ["[[[[[]]]]]", /more than 4 levels deep \(--max-json-depth\); it was not parsed/],
        ["[1,2,3,4,5,6]", /more than 5 entries \(--max-json-entries\)/],
        [
          JSON.stringify([
            [1, 2, 3, 4],
            [1, 2, 3, 4],
            [1, 2, 3, 4],
            [1, 2, 3, 4],
            [1, 2, 3, 4],
          ]),
          /more than 20 JSON values/,
        ],
      ] as const) {
        const r = await send(port, cert.caCert, { path: "/validate/fail", headers: json, body: text });
        assert.equal(r.status, 413, text);
        assert.match((r.json as { error: string }).error, reason);
      }
      assert.equal(handled, 0);
      const fine = await send(port, cert.caCert, {
        path: "/validate/fail",
        headers: json,
        body: '{"a":[[1,2],{"b":3}]}',
      });
      assert.equal(fine.status, 200);
      handled = 0;
    }
  });
});

describe("what a parsed body takes", () => {
  test("a body's parsed size is charged to the in-flight budget: alone it is served, beside a held one past the budget 503", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    let calls = 0;
    const port = await start({ maxInFlightBytes: 300_000, maxBodyBytes: 100_000 }, async () => {
      if (++calls === 1) await held;
      return { status: 200, body: { ok: true } };
    });
    const dense = `[${"{},".repeat(9_999)}{}]`; // 30 KB of text, about 1 MB parsed
    const first = send(port, cert.caCert, { path: "/validate/fail", headers: json, body: "[1]" });
    await new Promise((r) => setTimeout(r, 100)); // the first review is held in its handler
    const refused = await send(port, cert.caCert, { path: "/validate/fail", headers: json, body: dense });
    assert.equal(refused.status, 503);
    assert.match((refused.json as { error: string }).error, /would take about \d+ more once parsed/);
    assert.equal(refused.headers["retry-after"], "1");
    release();
    assert.equal((await first).status, 200);
    assert.equal((await send(port, cert.caCert, { path: "/validate/fail", headers: json, body: dense })).status, 200);
  });
});

describe("memory pressure", () => {
  test("while overloaded() gives a reason, reviews are answered 503 with it; health paths still answer", async () => {
    let reason: string | undefined = "heap 120 MiB of 128 MiB";
    const port = await start({ overloaded: () => reason });
    const shed = await send(port, cert.caCert, { path: "/validate/fail", headers: json, body: "{}" });
    assert.equal(shed.status, 503);
    assert.match((shed.json as { error: string }).error, /shedding load \(heap 120 MiB of 128 MiB\)/);
    assert.equal((await send(port, cert.caCert, { method: "GET", path: "/health/liveness" })).status, 200);
    reason = undefined;
    assert.equal((await send(port, cert.caCert, { path: "/validate/fail", headers: json, body: "{}" })).status, 200);
  });
});

describe("pipelining", () => {
  test("a client that pipelines more than 16 unanswered reviews on one connection is cut off; one that waits is served", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const port = await start({}, async () => {
      await held;
      return { status: 200, body: { ok: true } };
    });
    const socket = connect({ host: "127.0.0.1", port, ca: cert.caCert, servername: "webhook.test.svc" });
    await new Promise<void>((r) => socket.once("secureConnect", () => r()));
    socket.on("error", () => undefined);
    const one =
      "POST /validate/fail HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
    socket.write(one.repeat(40));
    const closed = await new Promise<boolean>((resolve) => {
      socket.once("close", () => resolve(true));
      setTimeout(() => resolve(false), 3000);
    });
    release();
    assert.equal(closed, true);
    assert.equal((await send(port, cert.caCert, { path: "/validate/fail", headers: json, body: "{}" })).status, 200);
  });
});

describe("connection cap", () => {
  const open = (port: number): Promise<{ ok: boolean; socket: TLSSocket; closed: Promise<void> }> =>
    new Promise((resolve) => {
      const socket = connect({ host: "127.0.0.1", port, ca: cert.caCert, servername: "webhook.test.svc" });
      const closed = new Promise<void>((r) => socket.once("close", () => r()));
      socket.on("error", () => undefined);
      socket.once("secureConnect", () => resolve({ ok: true, socket, closed }));
      void closed.then(() => resolve({ ok: false, socket, closed }));
    });
  const busy =
    "POST /validate/fail HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";

  test("at maxConnections a new connection replaces the one idle longest: idle connections cannot lock clients out", async () => {
    const port = await start({ maxConnections: 2 });
    const a = await open(port);
    const b = await open(port);
    b.socket.write("GET /health/liveness HTTP/1.1\r\nHost: x\r\n\r\n"); // b was active last: a is idle longest
    await new Promise((r) => setTimeout(r, 100));
    const c = await open(port);
    assert.deepEqual([a.ok, b.ok, c.ok], [true, true, true]);
    await a.closed;
    assert.equal(b.socket.destroyed, false, "the recently active connection is kept");
    for (const s of [b, c]) s.socket.destroy();
  });

  test("when every held connection has a request in flight, a new connection is closed on arrival", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const port = await start({ maxConnections: 2 }, async () => {
      await held;
      return { status: 200, body: { ok: true } };
    });
    const a = await open(port);
    const b = await open(port);
    a.socket.write(busy);
    b.socket.write(busy);
    await new Promise((r) => setTimeout(r, 200));
    const c = await open(port);
    assert.deepEqual([a.ok, b.ok, c.ok], [true, true, false]);
    release();
    for (const s of [a, b, c]) s.socket.destroy();
  });
});
