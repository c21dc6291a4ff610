import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { TestRegistry } from "../../../test/support/test-registry.js";
import { httpTransport } from "./http-transport.js";
import { imageDataOf } from "./image-data.js";
import { Keychain } from "./keychain.js";
import { RegistryClient } from "./registry-client.js";

const CONFIG = {
  architecture: "amd64",
  os: "linux",
  config: { User: "1000", Labels: { team: "a" } },
  created: "2026-01-02T03:04:05Z",
};

function keychainFor(host: string, user: string, password: string): Keychain {
  const auth = Buffer.from(`${user}:${password}`).toString("base64");
  const k = Keychain.fromDockerConfigs([{ text: JSON.stringify({ auths: { [host]: { auth } } }), source: "test" }]);
  assert.ok(k.ok);
  return k.value;
}

describe("registry client against a registry with bearer-token auth", () => {
  const registry = new TestRegistry({ users: { alice: "s3cret" }, blobRedirect: true });
  let digest = "";
  let indexDigest = "";
  before(async () => {
    await registry.start();
    digest = registry.add("team/app", "v1", { config: CONFIG, layerSizes: [100, 200] });
    indexDigest = registry.add("team/multi", "v2", { config: { config: { User: "0" } }, index: true });
  });
  after(() => registry.stop());

  test("resolves a tag to its digest and reads the manifest and config, with the pull secret's credentials", async () => {
    const client = new RegistryClient({ transport: httpTransport() });
    const got = await client.fetchImage(`${registry.host}/team/app:v1`, keychainFor(registry.host, "alice", "s3cret"));
    assert.ok(got.ok, got.ok ? "" : got.error.message);
    const data = imageDataOf(got.value, "context");
    assert.equal(data["resolvedImage"], `${registry.host}/team/app@${digest}`);
    assert.equal(data["registry"], registry.host);
    assert.equal(data["repository"], "team/app");
    assert.equal(data["identifier"], "v1");
    assert.deepEqual((data["configData"] as { config: unknown }).config, CONFIG.config);
    assert.deepEqual(
      (data["manifest"] as { layers: { size: number }[] }).layers.map((l) => l.size),
      [100, 200],
    );
    // The token went to the registry; the blob storage host (another port) got no Authorization.
    const tokenCall = registry.seen.find((s) => s.path === "/token");
    assert.match(tokenCall?.authorization ?? "", /^Basic /);
    const storage = registry.seen.filter((s) => s.path.startsWith("/storage/"));
    assert.ok(storage.length > 0);
    assert.ok(
      storage.every((s) => s.authorization === undefined),
      "no credentials to the redirect target",
    );
  });

  test("an index resolves to its linux/amd64 image; resolvedImage keeps the index digest", async () => {
    const client = new RegistryClient({ transport: httpTransport() });
    const got = await client.fetchImage(
      `${registry.host}/team/multi:v2`,
      keychainFor(registry.host, "alice", "s3cret"),
    );
    assert.ok(got.ok, got.ok ? "" : got.error.message);
    assert.equal(got.value.digest, indexDigest);
    assert.equal((got.value.config as { architecture: string }).architecture, "amd64");
    const meta = imageDataOf(got.value, "metadata");
    assert.equal(meta["resolvedImage"], `${registry.host}/team/multi:v2@${indexDigest}`);
    assert.equal(meta["tag"], "v2");
    assert.ok(meta["imageIndex"] !== undefined);
  });

  test("a digest reference is checked against the manifest it fetches", async () => {
    const client = new RegistryClient({ transport: httpTransport() });
    const good = await client.fetchImage(
      `${registry.host}/team/app@${digest}`,
      keychainFor(registry.host, "alice", "s3cret"),
    );
    assert.ok(good.ok);
    assert.equal(imageDataOf(good.value, "context")["identifier"], digest);
    const wrong = `sha256:${"0".repeat(64)}`;
    const bad = await client.fetchImage(
      `${registry.host}/team/app@${wrong}`,
      keychainFor(registry.host, "alice", "s3cret"),
    );
    assert.ok(!bad.ok);
    assert.match(bad.error.message, /unexpected status code 404: MANIFEST_UNKNOWN/);
    assert.doesNotMatch(bad.error.message, /secret upstream text/, "no upstream free text in a message");
  });

  test("without credentials, or with wrong ones, the token service refuses and the error says so", async () => {
    const client = new RegistryClient({ transport: httpTransport() });
    for (const keychain of [Keychain.empty, keychainFor(registry.host, "alice", "wrong")]) {
      const got = await client.fetchImage(`${registry.host}/team/app:v1`, keychain);
      assert.ok(!got.ok);
      assert.match(got.error.message, /token service of 127\.0\.0\.1:\d+ .* answered 401/);
    }
  });

  test("a fetched image is kept for the TTL: a second fetch sends nothing", async () => {
    let clock = 1_000;
    const client = new RegistryClient({ transport: httpTransport(), now: () => clock, ttlMs: 1_000 });
    const keys = keychainFor(registry.host, "alice", "s3cret");
    assert.ok((await client.fetchImage(`${registry.host}/team/app:v1`, keys)).ok);
    const before = registry.seen.length;
    assert.ok((await client.fetchImage(`${registry.host}/team/app:v1`, keys)).ok);
    assert.equal(registry.seen.length, before);
    clock += 2_000;
    assert.ok((await client.fetchImage(`${registry.host}/team/app:v1`, keys)).ok);
    assert.ok(registry.seen.length > before, "fetched again after the TTL");
  });

  test("a body over the cap is refused", async () => {
    const client = new RegistryClient({ transport: httpTransport({ maxBytes: 64 }) });
    const got = await client.fetchImage(`${registry.host}/team/app:v1`, keychainFor(registry.host, "alice", "s3cret"));
    assert.ok(!got.ok);
    assert.match(got.error.message, /larger than 64 bytes/);
  });
});

test("a registry that does not answer times out with a message naming the URL", async () => {
  const { createServer } = await import("node:net");
  const silent = createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", () => r()));
  const port = (silent.address() as { port: number }).port;
  try {
    const client = new RegistryClient({ transport: httpTransport({ timeoutMs: 200 }) });
    const got = await client.fetchImage(`127.0.0.1:${port}/x:1`);
    assert.ok(!got.ok);
    assert.match(
      got.error.message,
      new RegExp(`http://127\\.0\\.0\\.1:${port}/v2/x/manifests/1: no answer within 200 ms`),
    );
  } finally {
    silent.close();
  }
});
