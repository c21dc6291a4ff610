/**
 * The registry client over the egress filter: every hop is checked, redirects included, so a
 * registry that is allowed cannot send the client on to an address the filter refuses.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { TestRegistry } from "../../../test/support/test-registry.js";
import { RegistryClient } from "../../platform/registry/index.js";
import { EgressPolicy } from "../egress/egress-policy.js";
import { egressTransport } from "./egress-transport.js";

function client(allow: string[]): RegistryClient {
  const policy = EgressPolicy.create(allow);
  assert.ok(policy.ok);
  return new RegistryClient({ transport: egressTransport(policy.value) });
}

describe("registry calls through the egress filter", () => {
  const registry = new TestRegistry({ blobRedirect: "localhost" });
  before(async () => {
    await registry.start();
    registry.add("team/app", "1", { config: { config: { User: "1000" } } });
  });
  after(() => registry.stop());

  test("a loopback registry is refused by default, before any connection", async () => {
    const got = await client([]).fetchImage(`${registry.host}/team/app:1`);
    assert.ok(!got.ok);
    assert.equal(got.error.kind, "refused");
    assert.match(
      got.error.message,
      /registry URL http:\/\/127\.0\.0\.1:\d+\/v2\/team\/app\/manifests\/1: the address is loopback \(127\.0\.0\.0\/8\)/,
    );
    assert.equal(registry.seen.length, 0);
  });

  test("allowed, the registry is read; its redirect to a refused host (localhost) is checked again and refused", async () => {
    const got = await client(["127.0.0.0/8"]).fetchImage(`${registry.host}/team/app:1`);
    assert.ok(!got.ok);
    assert.equal(got.error.kind, "refused");
    assert.match(
      got.error.message,
      /registry URL http:\/\/localhost:\d+\/storage\/sha256:[a-f0-9]+: localhost is loopback/,
    );
    assert.ok(
      registry.seen.some((s) => s.path.includes("/manifests/")),
      "the manifest was read",
    );
    assert.ok(!registry.seen.some((s) => s.path.startsWith("/storage/")), "the redirect target saw no request");
  });
});
