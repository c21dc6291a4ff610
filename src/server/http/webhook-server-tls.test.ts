/**
 * The TLS the webhook accepts: TLS 1.2 and up with forward-secret AEAD suites by default, and,
 * with a client CA, only clients that present a certificate it signed. Each refusal has a control
 * that shows the client really can offer what is refused.
 */
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { connect, type ConnectionOptions } from "node:tls";
import { selfSignedCertificate } from "../tls/self-signed.js";
import { tlsPolicyFrom } from "../tls/tls-policy.js";
import { clientCertificate } from "../../../test/support/client-certs.js";
import type { WebhookServer, WebhookServerOptions } from "./types.js";
import { createWebhookServer } from "./webhook-server.js";

const serving = selfSignedCertificate({ dnsNames: ["webhook.test.svc"], now: new Date() });
const running: WebhookServer[] = [];
after(() => Promise.all(running.map((s) => s.close({ graceMs: 0 }))));

async function start(overrides: Partial<WebhookServerOptions> = {}): Promise<number> {
  const server = createWebhookServer({
    tls: { cert: serving.cert, key: serving.key },
    host: "127.0.0.1",
    port: 0,
    routes: new Map([["/validate/fail", () => ({ status: 200, body: {} })]]),
    health: { live: () => true, ready: () => ({ ok: true }) },
    ...overrides,
  });
  running.push(server);
  return (await server.listen()).port;
}

/** Handshakes and reports the protocol and suite, or the error. */
function handshake(port: number, options: ConnectionOptions): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, ca: serving.caCert, servername: "webhook.test.svc", ...options });
    socket.once("secureConnect", () => {
      // With TLS 1.3 a refused client certificate is reported after the handshake: wait for it.
      socket.write("GET /health/liveness HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      socket.once("data", () => {
        resolve(`${socket.getProtocol() ?? "?"} ${socket.getCipher().name}`);
        socket.destroy();
      });
    });
    socket.once("error", (e: NodeJS.ErrnoException) => resolve(`refused: ${e.code ?? e.message}`));
    socket.once("close", () => resolve("refused: closed"));
    socket.setTimeout(5000, () => {
      resolve("refused: timed out");
      socket.destroy();
    });
  });
}

/** A plain server that accepts anything, to show a client offers what the webhook refuses. */
async function permissive(): Promise<{ port: number; close(): void }> {
  const s = createServer(
    { cert: serving.cert, key: serving.key, minVersion: "TLSv1", ciphers: "DEFAULT@SECLEVEL=0" },
    (_q, r) => r.end("ok"),
  );
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return { port: (s.address() as AddressInfo).port, close: () => s.close() };
}

const OFFERS: [string, ConnectionOptions][] = [
  ["only a suite without forward secrecy (RSA key exchange)", { maxVersion: "TLSv1.2", ciphers: "AES128-GCM-SHA256" }],
  ["only a CBC suite", { maxVersion: "TLSv1.2", ciphers: "ECDHE-RSA-AES128-SHA" }],
  ["only TLS 1.1", { minVersion: "TLSv1.1", maxVersion: "TLSv1.1", ciphers: "DEFAULT@SECLEVEL=0" }],
];

describe("TLS versions and suites", () => {
  for (const [name, offer] of OFFERS) {
    test(`a client offering ${name} is refused by default`, async () => {
      const control = await permissive();
      try {
        assert.match(
          await handshake(control.port, { ...offer, rejectUnauthorized: false }),
          /^TLSv1/,
          "the client can offer it",
        );
      } finally {
        control.close();
      }
      assert.match(await handshake(await start(), offer), /^refused/);
    });
  }

  test("a default client gets TLS 1.3; a TLS 1.2 client gets an ECDHE AEAD suite", async () => {
    const port = await start();
    assert.match(await handshake(port, {}), /^TLSv1\.3 TLS_(AES|CHACHA20)/);
    assert.equal(await handshake(port, { maxVersion: "TLSv1.2" }), "TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256");
  });

  test("--tls-min-version 1.3 refuses TLS 1.2; --tls-cipher-suites narrows the TLS 1.2 suites", async () => {
    const v13 = tlsPolicyFrom("1.3", undefined);
    assert.ok(v13.ok);
    assert.match(await handshake(await start({ tlsPolicy: v13.value }), { maxVersion: "TLSv1.2" }), /^refused/);
    const narrow = tlsPolicyFrom(undefined, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
    assert.ok(narrow.ok);
    const port = await start({ tlsPolicy: narrow.value });
    assert.equal(await handshake(port, { maxVersion: "TLSv1.2" }), "TLSv1.2 ECDHE-RSA-AES256-GCM-SHA384");
    assert.match(await handshake(port, { maxVersion: "TLSv1.2", ciphers: "ECDHE-RSA-AES128-GCM-SHA256" }), /^refused/);
  });
});

describe("client certificates", () => {
  const apiServer = clientCertificate("kube-apiserver");
  const stranger = clientCertificate("someone-else");

  test("with a client CA, only a client with a certificate it signed gets through", async () => {
    const port = await start({ clientCa: apiServer.caCert });
    assert.match(await handshake(port, { cert: apiServer.cert, key: apiServer.key }), /^TLSv1\.3/);
    assert.match(await handshake(port, {}), /^refused/, "no certificate");
    assert.match(
      await handshake(port, { cert: stranger.cert, key: stranger.key }),
      /^refused/,
      "a certificate from another CA",
    );
  });

  test("without a client CA, no certificate is asked for", async () => {
    assert.match(await handshake(await start(), {}), /^TLSv1\.3/);
  });
});
