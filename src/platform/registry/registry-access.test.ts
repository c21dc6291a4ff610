/** Offline registry access by record and re-run: each image is fetched once per run, whatever the passes. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { err } from "../../engine/index.js";
import { Keychain } from "./keychain.js";
import { RegistryAccess, withRegistryPasses, MAX_REGISTRY_PASSES } from "./registry-access.js";
import { RegistryClient } from "./registry-client.js";

test("a pass asks, the images are fetched once, the next pass answers; a failure is Kyverno's text", async () => {
  const asked: string[] = [];
  const client = new RegistryClient({
    transport: async (x) => (asked.push(x.url), err("registry", `${x.url}: connection refused`)),
  });
  const access = new RegistryAccess(client, Keychain.empty);
  let passes = 0;
  const answers = await withRegistryPasses(access, () => {
    passes++;
    return [access.imageData("ghcr.io/a/b:1", "context"), access.imageData("ghcr.io/a/b:1", "metadata")];
  });
  assert.equal(passes, 2);
  assert.equal(asked.length, 1, "one fetch for one reference");
  for (const a of answers) {
    assert.ok(!a.ok);
    assert.equal(
      a.error.message,
      "failed to fetch image descriptor: ghcr.io/a/b:1, error: https://ghcr.io/v2/a/b/manifests/1: connection refused",
    );
  }
});

test("the passes end: a run that keeps asking for new images stops at the limit", async () => {
  const client = new RegistryClient({ transport: async (x) => err("registry", `${x.url}: refused`) });
  const access = new RegistryAccess(client, Keychain.empty);
  let n = 0;
  await withRegistryPasses(access, () => access.imageData(`ghcr.io/a/b:${n++}`, "context"));
  assert.equal(n, MAX_REGISTRY_PASSES);
});

test("without access there is one pass", async () => {
  let n = 0;
  await withRegistryPasses(undefined, () => n++);
  assert.equal(n, 1);
});
