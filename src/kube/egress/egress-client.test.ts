/**
 * The egress filter (egress-policy.ts, egress-client.ts): hostile URLs refused before any
 * connection; names checked at connect time (a rebinding answer is refused); redirects not followed;
 * no token; upstream bodies never in messages. A recording listener on loopback stands for the
 * service: the tests allow loopback explicitly, and one shows it is refused without that.
 */
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { EgressPolicy, embeddedIpv4 } from "./egress-policy.js";
import { callService, checkServiceUrl, type ResolveAll } from "./egress-client.js";

const strict = (EgressPolicy.create() as { ok: true; value: EgressPolicy }).value;
const loopbackAllowed = (EgressPolicy.create(["127.0.0.0/8"]) as { ok: true; value: EgressPolicy }).value;

describe("egress filter: hostile URLs are refused before connecting", () => {
  const hostile: [string, RegExp][] = [
    ["http://127.0.0.1/", /loopback/],
    ["http://2130706433/", /loopback/], // decimal
    ["http://0x7f.0x0.0x0.0x1/", /loopback/], // hex
    ["http://0177.0.0.1/", /loopback/], // octal
    ["http://127.1/", /loopback/], // short form
    ["http://[::1]/", /loopback/],
    ["http://[::ffff:127.0.0.1]/", /loopback/], // IPv4-mapped IPv6
    ["http://[::ffff:a9fe:a9fe]/latest/meta-data", /link-local/],
    ["http://[64:ff9b::a9fe:a9fe]/", /link-local/], // NAT64
    ["http://[2002:a9fe:a9fe::]/", /link-local/], // 6to4
    ["http://[::127.0.0.1]/", /loopback/], // IPv4-compatible
    ["http://169.254.169.254/latest/meta-data/", /link-local/],
    ["http://[fe80::1]/", /link-local/],
    ["http://[fd00:ec2::254]/", /metadata/],
    ["http://100.100.100.200/", /metadata/],
    ["http://0.0.0.0:8080/", /unspecified/],
    ["http://[::]/", /unspecified/],
    ["http://metadata.google.internal/computeMetadata/v1/", /metadata/],
    ["http://metadata.google.internal./computeMetadata/v1/", /metadata/], // trailing dot
    ["http://METADATA.Google.Internal/", /metadata/],
    ["http://localhost:8080/", /localhost is loopback/],
    ["http://localhost./", /localhost is loopback/],
    ["http://user:pass@example.com/", /user information/],
    ["http://example.com@127.0.0.1/", /user information/], // userinfo@ trick
    ["file:///etc/passwd", /only http and https/],
    ["gopher://example.com/", /only http and https/],
    ["not a url", /not a valid URL/],
  ];
  for (const [url, why] of hostile) {
    it(`refuses ${url}`, () => {
      const r = checkServiceUrl(url, strict);
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.equal(r.error.kind, "refused");
        assert.match(r.error.message, why);
      }
    });
  }

  it("accepts a cluster Service name, a private address and a public one", () => {
    for (const url of [
      "https://policy-data.tools.svc.cluster.local/v1/allowed",
      "http://10.96.0.12:8080/x",
      "https://203.0.113.7/",
    ])
      assert.equal(checkServiceUrl(url, strict).ok, true, url);
  });

  it("IPv6 spellings of IPv4 addresses are read as those addresses", () => {
    assert.equal(embeddedIpv4("::ffff:7f00:1"), "127.0.0.1");
    assert.equal(embeddedIpv4("64:ff9b::169.254.169.254"), "169.254.169.254");
    assert.equal(embeddedIpv4("2002:0a00:0001::"), "10.0.0.1");
    assert.equal(embeddedIpv4("2001:db8::1"), undefined);
    assert.equal(embeddedIpv4("::1"), undefined);
  });

  it("--egress-allow takes CIDRs and refuses anything else", () => {
    assert.equal(EgressPolicy.create(["127.0.0.0/8", "::1/128", "169.254.10.1"]).ok, true);
    for (const bad of ["127.0.0.0/33", "localhost", "10.0.0.0/x"])
      assert.equal(EgressPolicy.create([bad]).ok, false, bad);
  });
});

describe("egress client against a recording listener on loopback", () => {
  let server: Server;
  let port = 0;
  const seen: { url: string; method: string; headers: IncomingHttpHeaders; body: string }[] = [];
  before(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => {
        seen.push({ url: req.url ?? "", method: req.method ?? "", headers: req.headers, body });
        if (req.url === "/redirect") {
          res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
        } else if (req.url === "/fail") {
          res.writeHead(500).end("SECRET-CANARY upstream stack trace");
        } else if (req.url === "/big") {
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ pad: "x".repeat(5000) }));
        } else if (req.url === "/text") {
          res.writeHead(200).end("SECRET-CANARY not json");
        } else {
          res
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ allowed: true, echo: body === "" ? null : (JSON.parse(body) as unknown) }));
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it("is refused without --egress-allow, and the listener sees nothing", async () => {
    const before = seen.length;
    const r = await callService({ method: "GET", url: `http://127.0.0.1:${port}/data` }, { policy: strict });
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.error.kind, "refused");
    assert.equal(seen.length, before);
  });

  it("with loopback allowed: the JSON answer; only the policy's headers; no Authorization unless stated", async () => {
    const r = await callService(
      {
        method: "POST",
        url: `http://127.0.0.1:${port}/data?x=1`,
        headers: [{ key: "X-Team", value: "a" }],
        body: JSON.stringify({ user: "alice" }),
      },
      { policy: loopbackAllowed },
    );
    assert.deepEqual(r, { ok: true, value: { allowed: true, echo: { user: "alice" } } });
    const last = seen[seen.length - 1];
    assert.equal(last?.method, "POST");
    assert.equal(last?.headers["x-team"], "a");
    assert.equal(last?.headers["content-type"], "application/json");
    assert.equal(last?.headers["authorization"], undefined);
  });

  it("a name is checked at connect time: a resolver answering loopback (rebinding) is refused", async () => {
    const before = seen.length;
    let asked = 0;
    const rebinding: ResolveAll = async () => (asked++, [{ address: "127.0.0.1", family: 4 }]);
    const r = await callService(
      { method: "GET", url: `http://innocent.example:${port}/data` },
      { policy: strict, resolve: rebinding },
    );
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error.message, /resolves to an address that is refused: the address is loopback/);
    assert.equal(asked, 1, "resolved once, in the socket's lookup");
    assert.equal(seen.length, before);
    // Allowed, the same name connects to exactly the address that was checked.
    const ok = await callService(
      { method: "GET", url: `http://innocent.example:${port}/data` },
      { policy: loopbackAllowed, resolve: rebinding },
    );
    assert.equal(ok.ok, true);
  });

  it("a name resolving to one good and one refused address is refused", async () => {
    const mixed: ResolveAll = async () => [
      { address: "127.0.0.1", family: 4 },
      { address: "169.254.169.254", family: 4 },
    ];
    const r = await callService(
      { method: "GET", url: `http://mixed.example:${port}/data` },
      { policy: loopbackAllowed, resolve: mixed },
    );
    assert.equal(r.ok, false);
  });

  it("a redirect is not followed; the error names the status and URL only", async () => {
    const before = seen.length;
    const r = await callService(
      { method: "GET", url: `http://127.0.0.1:${port}/redirect` },
      { policy: loopbackAllowed },
    );
    assert.equal(r.ok, false);
    if (!r.ok)
      assert.equal(
        r.error.message,
        `failed to execute HTTP request to http://127.0.0.1:${port}/redirect: HTTP 302: redirects are not followed`,
      );
    assert.equal(seen.length, before + 1);
  });

  it("an error status or a non-JSON answer never copies the upstream body", async () => {
    for (const path of ["/fail", "/text"]) {
      const r = await callService(
        { method: "GET", url: `http://127.0.0.1:${port}${path}` },
        { policy: loopbackAllowed },
      );
      assert.equal(r.ok, false);
      if (!r.ok) assert.doesNotMatch(r.error.message, /SECRET-CANARY/);
    }
  });

  it("caps the answer's size and time", async () => {
    const big = await callService(
      { method: "GET", url: `http://127.0.0.1:${port}/big` },
      { policy: loopbackAllowed, maxBytes: 1000 },
    );
    assert.equal(big.ok, false);
    if (!big.ok) assert.match(big.error.message, /max allowed response length of 1000/);
    const slow = await callService(
      { method: "GET", url: `http://slow.example:${port}/data` },
      { policy: loopbackAllowed, timeoutMs: 50, resolve: () => new Promise(() => undefined) },
    );
    assert.equal(slow.ok, false);
    if (!slow.ok) assert.match(slow.error.message, /no answer within 50 ms/);
  });
});
