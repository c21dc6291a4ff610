/** Cosign signatures read from a registry: the sha256-<hex>.sig manifest, its payload blobs and signature annotations. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { TestRegistry } from "../../../test/support/test-registry.js";
import {
  ecdsaKey,
  inTotoStatement,
  signAttestation,
  signPayload,
  simpleSigning,
} from "../../../test/support/cosign-signing.js";
import { httpTransport } from "./http-transport.js";
import { Keychain } from "./keychain.js";
import { RegistryAccess, withRegistryPasses } from "./registry-access.js";
import { RegistryClient } from "./registry-client.js";

describe("cosign signatures from a registry", () => {
  const registry = new TestRegistry({ blobRedirect: true });
  const key = ecdsaKey();
  let digest = "";
  let payload: Buffer = Buffer.alloc(0);
  before(async () => {
    await registry.start();
    digest = registry.add("team/app", "v1", { config: {} });
    registry.add("team/bare", "v1", { config: {} });
    payload = simpleSigning(`${registry.host}/team/app`, digest);
    const sig = signPayload(key, payload);
    registry.sign("team/app", digest, [sig, sig]);
    registry.sign("team/app", digest, [sig], "team/sigs");
    registry.attest("team/app", digest, [
      signAttestation(
        key,
        inTotoStatement(`${registry.host}/team/app`, digest, "https://slsa.dev/provenance/v0.2", {}),
      ),
    ]);
  });
  after(() => registry.stop());

  test("the payload bytes and signatures of each layer, for the digest the tag names", async () => {
    const client = new RegistryClient({ transport: httpTransport() });
    const got = await client.fetchSignatures(`${registry.host}/team/app:v1`, undefined);
    assert.ok(got.ok, got.ok ? "" : got.error.message);
    assert.equal(got.value.digest, digest);
    assert.equal(got.value.signatures.length, 2);
    assert.equal(Buffer.from(got.value.signatures[0]?.payload ?? "", "base64").toString(), payload.toString());
    assert.ok(registry.seen.some((s) => s.path === `/v2/team/app/manifests/${digest.replace(":", "-")}.sig`));
  });

  test("another signature repository, and an image with none (no signatures, not an error)", async () => {
    const client = new RegistryClient({ transport: httpTransport() });
    const other = await client.fetchSignatures(`${registry.host}/team/app:v1`, `${registry.host}/team/sigs`);
    assert.ok(other.ok && other.value.signatures.length === 1);
    const bare = await client.fetchSignatures(`${registry.host}/team/bare:v1`, undefined);
    assert.ok(bare.ok);
    assert.deepEqual(bare.value.signatures, []);
    const missing = await client.fetchSignatures(`${registry.host}/team/none:v1`, undefined);
    assert.ok(!missing.ok);
    assert.match(missing.error.message, /404: MANIFEST_UNKNOWN/);
  });

  test("attestations: the sha256-<hex>.att manifest's layers are the DSSE envelopes; signatures and attestations are kept apart", async () => {
    const access = new RegistryAccess(new RegistryClient({ transport: httpTransport() }), Keychain.empty);
    const [atts, sigs] = await withRegistryPasses(access, () => [
      access.imageData(`${registry.host}/team/app:v1`, "attestations"),
      access.imageData(`${registry.host}/team/app:v1`, "signatures"),
    ]);
    assert.ok(atts?.ok && sigs?.ok);
    const layers = (atts.value as { signatures: { payload: string }[] }).signatures;
    assert.equal(layers.length, 1);
    const envelope = JSON.parse(Buffer.from(layers[0]?.payload ?? "", "base64").toString()) as { payloadType: string };
    assert.equal(envelope.payloadType, "application/vnd.in-toto+json");
    assert.equal((sigs.value as { signatures: unknown[] }).signatures.length, 2);
    assert.ok(registry.seen.some((s) => s.path === `/v2/team/app/manifests/${digest.replace(":", "-")}.att`));
  });

  test("offline access records signatures and digests like images, and answers after the next pass", async () => {
    const access = new RegistryAccess(new RegistryClient({ transport: httpTransport() }), Keychain.empty);
    let passes = 0;
    const answers = await withRegistryPasses(access, () => {
      passes++;
      return [
        access.imageData(`${registry.host}/team/app:v1`, "signatures"),
        access.imageData(`${registry.host}/team/app:v1`, "digest"),
      ];
    });
    assert.equal(passes, 2);
    assert.deepEqual(
      answers.map((a) => a.ok),
      [true, true],
    );
    assert.deepEqual(answers[1]?.ok ? answers[1].value : undefined, { digest });
  });
});
