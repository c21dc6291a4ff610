import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { createServer, request } from "node:https";
import type { Server } from "node:https";
import type { AddressInfo } from "node:net";
import { selfSignedCertificate } from "./self-signed.js";

const NOW = new Date("2025-06-01T12:00:00Z");
const bundle = selfSignedCertificate({
  dnsNames: ["bylaw.bylaw.svc", "bylaw.bylaw.svc.cluster.local"],
  now: new Date(),
  includeLoopback: true,
});

function listen(pair: { cert: string; key: string }): Promise<{ server: Server; port: number }> {
  const server = createServer(pair, (_req, res) => res.end("hello"));
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as AddressInfo).port })),
  );
}

function get(port: number, opts: { ca?: string; servername?: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", agent: false, ...opts }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve(body));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("selfSignedCertificate", () => {
  test("node:tls accepts the serving certificate when trusting only the CA, for each DNS name and 127.0.0.1", async () => {
    const { server, port } = await listen(bundle);
    try {
      assert.equal(await get(port, { ca: bundle.caCert, servername: "bylaw.bylaw.svc" }), "hello");
      assert.equal(await get(port, { ca: bundle.caCert, servername: "bylaw.bylaw.svc.cluster.local" }), "hello");
      assert.equal(await get(port, { ca: bundle.caCert }), "hello"); // IP SAN 127.0.0.1
      await assert.rejects(get(port, { ca: bundle.caCert, servername: "other.example.com" }), /altnames|Hostname/i);
      await assert.rejects(get(port, { servername: "bylaw.bylaw.svc" }), /self[- ]signed|unable to (get|verify)/i);
    } finally {
      server.close();
    }
  });

  test("a client trusting a different CA rejects it", async () => {
    const other = selfSignedCertificate({ dnsNames: ["bylaw.bylaw.svc"], now: new Date() });
    const { server, port } = await listen(bundle);
    try {
      await assert.rejects(get(port, { ca: other.caCert, servername: "bylaw.bylaw.svc" }));
    } finally {
      server.close();
    }
  });

  test("the CA is a CA and the leaf is a serverAuth leaf it signed, with the SANs asked for", () => {
    const ca = new X509Certificate(bundle.caCert);
    const leaf = new X509Certificate(bundle.cert);
    assert.equal(ca.ca, true);
    assert.equal(leaf.ca, false);
    assert.ok(leaf.checkIssued(ca));
    assert.ok(leaf.verify(ca.publicKey));
    assert.equal(
      leaf.subjectAltName,
      "DNS:bylaw.bylaw.svc, DNS:bylaw.bylaw.svc.cluster.local, DNS:localhost, IP Address:127.0.0.1",
    );
    assert.deepEqual(leaf.keyUsage, ["1.3.6.1.5.5.7.3.1"]);
    assert.match(leaf.subject, /CN=bylaw\.bylaw\.svc/);
    assert.equal(ca.publicKey.asymmetricKeyDetails?.modulusLength, 2048);
    assert.equal(leaf.publicKey.asymmetricKeyDetails?.modulusLength, 2048);
    assert.equal(Buffer.from(bundle.caBundle, "base64").toString("utf8"), bundle.caCert);
    assert.notEqual(leaf.serialNumber, ca.serialNumber);
  });

  test("validity runs from an hour before `now` for `days` days; no loopback SANs unless asked", () => {
    const b = selfSignedCertificate({ dnsNames: ["svc.ns.svc"], days: 30, now: NOW });
    const leaf = new X509Certificate(b.cert);
    assert.equal(new Date(leaf.validFrom).toISOString(), "2025-06-01T11:00:00.000Z");
    assert.equal(new Date(leaf.validTo).toISOString(), "2025-07-01T12:00:00.000Z");
    assert.equal(new Date(new X509Certificate(b.caCert).validTo).toISOString(), "2025-07-01T12:00:00.000Z");
    assert.equal(leaf.subjectAltName, "DNS:svc.ns.svc");
  });

  test("bad input is refused with a reason", () => {
    const cases: [Parameters<typeof selfSignedCertificate>[0], RegExp][] = [
      [{ dnsNames: [], now: NOW }, /at least one DNS name/],
      [{ dnsNames: ["not a name"], now: NOW }, /not a valid DNS name/],
      [{ dnsNames: ["ok.svc"], days: 0, now: NOW }, /positive number of days/],
    ];
    for (const [options, message] of cases) assert.throws(() => selfSignedCertificate(options), message);
  });
});
