/**
 * KubeClient's connections: watches hold their connection for as long as they last, so they must
 * never starve the requests (GETs, status writes) of the same client.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:https";
import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { generateKeyPem, mintCa, mintServing } from "../platform/tls/certificate-authority.js";
import { KubeClient } from "./kube-client.js";

/** An HTTPS server on loopback: `?watch=1` streams stay open (until closed), anything else answers `{}`. */
async function fakeApiServer(): Promise<{ server: Server; url: string; ca: string; streams: ServerResponse[] }> {
  const now = Date.now();
  const ca = mintCa("test-ca", { now, validityMs: 3_600_000 }, await generateKeyPem());
  const leaf = mintServing(ca, ["localhost"], ["127.0.0.1"], { now, validityMs: 3_600_000 }, await generateKeyPem());
  const streams: ServerResponse[] = [];
  const server = createServer({ cert: leaf.cert, key: leaf.key }, (req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    if ((req.url ?? "").includes("watch=1")) {
      streams.push(res);
      res.write('{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"1"}}}\n');
      return;
    }
    res.end("{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return { server, url: `https://127.0.0.1:${port}`, ca: ca.cert, streams };
}

test("a GET and a write still answer while more watches are open than the client has request connections", async () => {
  const api = await fakeApiServer();
  const client = new KubeClient({ connection: { server: api.url, ca: api.ca, origin: "test" }, timeoutMs: 10_000 });
  const watches = Array.from({ length: 40 }, (_, i) => client.watch(`/api/v1/kind${i}?watch=1`, () => undefined));
  try {
    const until = Date.now() + 5000;
    while (api.streams.length < watches.length && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assert.equal(api.streams.length, 40, "every watch is open at the server");
    const timeout = new Promise<string>((r) => setTimeout(() => r("no answer within 3 s"), 3000).unref());
    assert.deepEqual(await Promise.race([client.getJson("/api/v1/namespaces"), timeout]), {});
    assert.deepEqual(await Promise.race([client.sendJson("PATCH", "/apis/x/v1/things/a/status", {}), timeout]), {});
  } finally {
    for (const w of watches) w.close();
    client.close();
    for (const s of api.streams) s.end();
    api.server.closeAllConnections();
    await new Promise((r) => api.server.close(r));
  }
});

test("a client made withRateLimit has its own request budget: it answers while the parent's is spent", async () => {
  const api = await fakeApiServer();
  // One request, then one every 5 s.
  const parent = new KubeClient({ connection: { server: api.url, ca: api.ca, origin: "test" }, qps: 0.2, burst: 1 });
  const child = parent.withRateLimit({ qps: 1000, burst: 1000 });
  try {
    await parent.sendJson("POST", "/apis/x/v1/things", {});
    let parentDone = false;
    const second = parent.sendJson("POST", "/apis/x/v1/things", {}).then(() => (parentDone = true));
    const started = Date.now();
    for (let i = 0; i < 5; i++) await child.sendJson("POST", "/apis/x/v1/things", {});
    assert.ok(Date.now() - started < 2000, `the child's 5 writes took ${Date.now() - started} ms`);
    assert.equal(parentDone, false, "the parent's second write still waits for its budget");
    await second;
  } finally {
    parent.close();
    api.server.closeAllConnections();
    await new Promise((r) => api.server.close(r));
  }
});

test("a write asks for what its caller reads of the answer: the metadata only, or nothing, and a refusal is still an error", async () => {
  const now = Date.now();
  const ca = mintCa("test-ca", { now, validityMs: 3_600_000 }, await generateKeyPem());
  const leaf = mintServing(ca, ["localhost"], ["127.0.0.1"], { now, validityMs: 3_600_000 }, await generateKeyPem());
  const accepts: string[] = [];
  const server = createServer({ cert: leaf.cert, key: leaf.key }, (req, res) => {
    accepts.push(req.headers.accept ?? "");
    if ((req.url ?? "").includes("refused")) {
      res.writeHead(403, { "content-type": "application/json" });
      res.end('{"kind":"Status","message":"things \\"a\\" is forbidden","reason":"Forbidden"}');
      return;
    }
    res.writeHead(201, { "content-type": "application/json" });
    // A body that is not JSON: a caller that asked for nothing never parses it.
    res.end(
      (req.headers.accept ?? "").includes("PartialObjectMetadata")
        ? '{"metadata":{"resourceVersion":"7"}}'
        : "not json",
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new KubeClient({ connection: { server: url, ca: ca.cert, origin: "test" }, timeoutMs: 10_000 });
  try {
    assert.deepEqual(await client.sendJson("POST", "/apis/x/v1/things", {}, { answer: "metadata" }), {
      metadata: { resourceVersion: "7" },
    });
    assert.equal(accepts[0], "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json");
    assert.equal(await client.sendJson("POST", "/apis/x/v1/things", {}, { answer: "none" }), undefined);
    assert.equal(accepts[1], "application/json");
    await assert.rejects(client.sendJson("POST", "/apis/x/v1/things", {}), /the answer is not JSON/);
    await assert.rejects(client.sendJson("POST", "/apis/x/v1/refused", {}, { answer: "none" }), (e: Error) => {
      assert.match(e.message, /things "a" is forbidden/);
      return true;
    });
  } finally {
    client.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test("a read can ask for the objects' metadata only: a GET for a PartialObjectMetadataList, a watch for PartialObjectMetadata events", async () => {
  const now = Date.now();
  const ca = mintCa("test-ca", { now, validityMs: 3_600_000 }, await generateKeyPem());
  const leaf = mintServing(ca, ["localhost"], ["127.0.0.1"], { now, validityMs: 3_600_000 }, await generateKeyPem());
  const accepts: string[] = [];
  const server = createServer({ cert: leaf.cert, key: leaf.key }, (req, res) => {
    accepts.push(`${(req.url ?? "").includes("watch=1") ? "watch" : "get"} ${req.headers.accept ?? ""}`);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      (req.url ?? "").includes("watch=1") ? '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n' : '{"items":[]}',
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new KubeClient({ connection: { server: url, ca: ca.cert, origin: "test" }, timeoutMs: 10_000 });
  try {
    await client.getJson("/apis/x/v1/things", { metadataOnly: true });
    await client.getJson("/apis/x/v1/things");
    const events: unknown[] = [];
    await client.watch("/apis/x/v1/things?watch=1", (e) => events.push(e), undefined, { metadataOnly: true }).done;
    await client.watch("/apis/x/v1/things?watch=1", (e) => events.push(e)).done;
    assert.deepEqual(accepts, [
      "get application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json",
      "get application/json",
      "watch application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json",
      "watch application/json",
    ]);
    assert.equal(events.length, 2);
  } finally {
    client.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
