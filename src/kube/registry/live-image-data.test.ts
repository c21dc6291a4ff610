/** Which pull secrets an image data call may use, and what it needs to be made at all. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../engine/index.js";
import { Keychain, RegistryClient } from "../../platform/registry/index.js";
import { usesNetworkCalls } from "../live-calls.js";
import { CallScopes } from "../review-calls.js";
import { liveImageData, type LiveRegistry } from "./live-image-data.js";
import { PullSecrets } from "./pull-secrets.js";

function live(reads: string[]): LiveRegistry {
  return {
    client: new RegistryClient({
      transport: async () => ({ ok: false, error: { kind: "registry", message: "no network in this test" } }),
    }),
    scopes: new CallScopes(),
    secrets: new PullSecrets(async (path) => (reads.push(path), { data: {} })),
    ownNamespace: "bylaw",
    pullSecrets: [],
  };
}

describe("live image data", () => {
  test("a ClusterPolicy's secrets: a bare name in Bylaw's namespace, namespace/name elsewhere; recorded as one call per review", () => {
    const reg = live([]);
    const record = reg.scopes.begin();
    const answer = record.within(() =>
      liveImageData(reg, "ghcr.io/a/b:1", {
        form: "context",
        credentials: { secrets: ["pull", "shared/pull2"] },
        caller: { policyNamespace: "" },
      }),
    );
    assert.ok(!answer.ok);
    assert.equal(answer.error.kind, "pending");
    assert.equal(record.pending, 1);
  });

  test("cloud providers and allowInsecureRegistry are errors saying Bylaw does not run them", () => {
    const reg = live([]);
    const record = reg.scopes.begin();
    const providers = record.within(() =>
      liveImageData(reg, "x.io/a:1", { form: "context", credentials: { providers: ["default", "amazon"] } }),
    );
    assert.ok(!providers.ok);
    assert.match(
      providers.error.message,
      /imageRegistryCredentials\.providers amazon \(cloud keychains\) are not supported by Bylaw; use secrets/,
    );
    const insecure = record.within(() =>
      liveImageData(reg, "x.io/a:1", { form: "context", credentials: { allowInsecureRegistry: true } }),
    );
    assert.ok(!insecure.ok);
    assert.match(insecure.error.message, /allowInsecureRegistry/);
    assert.equal(record.pending, 0);
  });

  test("outside an admission review nothing is fetched", () => {
    const answer = liveImageData(live([]), "x.io/a:1", { form: "metadata" });
    assert.ok(!answer.ok);
    assert.equal(answer.error.kind, "unsupported");
  });

  test("a pull secret without docker config is an error naming it, not its content", async () => {
    const reads: string[] = [];
    const k = await new PullSecrets(async (path) => (reads.push(path), { data: { token: "c2VjcmV0" } })).keychain([
      { namespace: "bylaw", name: "p" },
    ]);
    assert.ok(!k.ok);
    assert.equal(k.error.message, "pull secret bylaw/p holds no .dockerconfigjson or .dockercfg");
    assert.deepEqual(reads, ["/api/v1/namespaces/bylaw/secrets/p"]);
    assert.equal(Keychain.empty.size, 0);
  });

  test("policies with imageRegistry entries or CEL image.GetMetadata are evaluated in passes (usesNetworkCalls)", () => {
    const entry = {
      spec: { rules: [{ context: [{ name: "i", imageRegistry: { reference: "nginx" } }] }] },
    } as unknown as JsonValue;
    const cel = {
      spec: {
        validations: [
          { expression: "image.getMetadata(object.spec.containers[0].image).config.config.User != 'root'" },
        ],
      },
    } as unknown as JsonValue;
    const plain = {
      spec: { rules: [{ validate: { pattern: { spec: { containers: [{ image: "!*:latest" }] } } } }] },
    } as unknown as JsonValue;
    assert.equal(usesNetworkCalls(entry), true);
    assert.equal(usesNetworkCalls(cel), true);
    assert.equal(usesNetworkCalls(plain), false);
    const verify = { spec: { rules: [{ verifyImages: [{ imageReferences: ["*"] }] }] } } as unknown as JsonValue;
    assert.equal(usesNetworkCalls(verify), true);
    assert.equal(usesNetworkCalls({ spec: { rules: [{ verifyImages: [] }] } }), false);
  });
});
