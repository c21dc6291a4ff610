/** /metrics behind TLS and an authorizer (--metrics-auth token): refused before rendering, served when allowed. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { selfSignedCertificate } from "../tls/self-signed.js";
import { send } from "../../../test/support/https-send.js";
import { createMetricsServer } from "./metrics-server.js";

const cert = selfSignedCertificate({ dnsNames: ["webhook.test.svc"], now: new Date() });

test("with tls and authorize: HTTPS; no token 401 with a Bearer challenge, a refused token 403, an allowed one served", async () => {
  let renders = 0;
  const seen: (string | undefined)[] = [];
  const server = createMetricsServer({
    host: "127.0.0.1",
    port: 0,
    tls: { cert: cert.cert, key: cert.key },
    render: () => {
      renders++;
      return Promise.resolve({ contentType: "text/plain", body: "bylaw_up 1\n" });
    },
    authorize: (header) => {
      seen.push(header);
      if (header === undefined) return Promise.resolve({ ok: false, status: 401, message: "needs a bearer token" });
      if (header === "Bearer good") return Promise.resolve({ ok: true });
      return Promise.resolve({ ok: false, status: 403, message: "may not get /metrics" });
    },
  });
  const { port } = await server.listen();
  try {
    const none = await send(port, cert.caCert, { method: "GET", path: "/metrics" });
    assert.equal(none.status, 401);
    assert.equal(none.headers["www-authenticate"], "Bearer");
    assert.match(none.body, /needs a bearer token/);
    const bad = await send(port, cert.caCert, {
      method: "GET",
      path: "/metrics",
      headers: { authorization: "Bearer bad" },
    });
    assert.equal(bad.status, 403);
    assert.equal(renders, 0, "nothing is rendered for a refused scrape");
    const good = await send(port, cert.caCert, {
      method: "GET",
      path: "/metrics",
      headers: { authorization: "Bearer good" },
    });
    assert.equal(good.status, 200);
    assert.equal(good.body, "bylaw_up 1\n");
    assert.deepEqual(seen, [undefined, "Bearer bad", "Bearer good"]);
  } finally {
    await server.close();
  }
});
