/**
 * validate.manifests as Kyverno runs it (validate_manifest.go over k8s-manifest-sigstore), with
 * manifests signed here by test keys: which entries verify, how `count` combines them, and the
 * messages of pass, fail and error.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { nodeSignatures } from "../../platform/node-ports.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import {
  deploymentManifest,
  keyAttestors,
  manifestsPolicy,
  signed,
  testKey,
} from "../../../test/support/signed-manifests.js";

const engine = createEngine({ ...fakePorts(), signatures: nodeSignatures });
const [alice, bob, carol] = [testKey(), testKey(), testKey()] as const;

function check(manifests: JsonObject, resource: JsonObject, extra: object = {}): [string, string] {
  const compiled = engine.compile(manifestsPolicy(manifests));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const rules = engine.validate(compiled.policy, {
    resource,
    operation: "CREATE",
    namespaceLabels: {},
    ...extra,
  }).rules;
  assert.equal(rules.length, 1, JSON.stringify(rules));
  return [rules[0]?.status ?? "", rules[0]?.message ?? ""];
}

const PASS_ONE =
  "verified manifest signatures; manifest verification succeeded; verifiedCount 1; requiredCount 1; message singed by a valid signer: ";

describe("validate.manifests", () => {
  test("a manifest signed by the policy's key passes, with Kyverno's message", () => {
    assert.deepEqual(check({ attestors: keyAttestors([alice]) }, signed(deploymentManifest(), [alice])), [
      "pass",
      PASS_ONE,
    ]);
  });

  test("RSA and Ed25519 keys verify too (cosign: RSA PKCS#1 v1.5 over SHA-256, Ed25519 over the bytes)", () => {
    for (const key of [testKey("rsa"), testKey("ed25519")]) {
      assert.deepEqual(check({ attestors: keyAttestors([key]) }, signed(deploymentManifest(), [key])), [
        "pass",
        PASS_ONE,
      ]);
    }
  });

  test("fields the cluster sets (uid, status, managedFields, resourceVersion) are ignored by default", () => {
    const live = signed(deploymentManifest(), [alice]);
    const meta = live["metadata"] as JsonObject;
    const withServerFields = {
      ...live,
      metadata: { ...meta, uid: "u-1", resourceVersion: "42", generation: 3, managedFields: [{ manager: "kubectl" }] },
      status: { replicas: 1 },
    };
    assert.deepEqual(check({ attestors: keyAttestors([alice]) }, withServerFields), ["pass", PASS_ONE]);
  });

  test("a changed field fails, naming the field with its signed and actual values", () => {
    const tampered = {
      ...signed(deploymentManifest(1), [alice]),
      spec: { ...(deploymentManifest(1)["spec"] as JsonObject), replicas: 5 },
    };
    assert.deepEqual(check({ attestors: keyAttestors([alice]) }, tampered), [
      "fail",
      'manifest verification failed; verifiedCount 0; requiredCount 1; message .attestors[0].entries[0].keys: failed to verify signature. diff found; {"items":[{"key":"spec.replicas","values":{"after":5,"before":1}}]}',
    ]);
  });

  test("an added or removed field is a difference too", () => {
    const base = signed(deploymentManifest(), [alice]);
    const withoutReplicas: JsonObject = { ...(base["spec"] as JsonObject) };
    delete withoutReplicas["replicas"];
    const [, removed] = check(
      { attestors: keyAttestors([alice]) },
      { ...base, spec: { ...withoutReplicas, paused: true } },
    );
    assert.match(
      removed,
      /\{"key":"spec.paused","values":\{"after":true,"before":null\}\},\{"key":"spec.replicas","values":\{"after":null,"before":1\}\}/,
    );
  });

  test("ignoreFields lets an ignored change pass; other objects keep the check", () => {
    const tampered = {
      ...signed(deploymentManifest(1), [alice]),
      spec: { ...(deploymentManifest(1)["spec"] as JsonObject), replicas: 5 },
    };
    const ignore = (objects: JsonObject[]) => ({
      attestors: keyAttestors([alice]),
      ignoreFields: [{ objects, fields: ["spec.replicas"] }],
    });
    assert.deepEqual(check(ignore([{ kind: "Deployment" }]), tampered), ["pass", PASS_ONE]);
    assert.deepEqual(check(ignore([{ kind: "Deploy*" }]), tampered)[0], "pass");
    assert.deepEqual(check(ignore([{ kind: "Deployment", name: "other" }]), tampered)[0], "fail");
    assert.deepEqual(check(ignore([{ kind: "StatefulSet" }]), tampered)[0], "fail");
  });

  test("a resource without the signature annotations fails with Kyverno's message", () => {
    assert.deepEqual(check({ attestors: keyAttestors([alice]) }, deploymentManifest()), [
      "fail",
      "manifest verification failed; verifiedCount 0; requiredCount 1; message .attestors[0].entries[0].keys: YAML manifest not found for this resource: message not found",
    ]);
    const messageOnly = signed(deploymentManifest(), []);
    assert.deepEqual(check({ attestors: keyAttestors([alice]) }, messageOnly), [
      "fail",
      "manifest verification failed; verifiedCount 0; requiredCount 1; message .attestors[0].entries[0].keys: failed to verify signature: signature not found",
    ]);
  });

  test("a signature by another key is an error, as in Kyverno (the signature check itself fails)", () => {
    const [status, message] = check({ attestors: keyAttestors([alice]) }, signed(deploymentManifest(), [bob]));
    assert.equal(status, "error");
    assert.equal(
      message,
      'error occurred during manifest verification: .attestors[0].entries[0].keys: failed to verify signature: verification failed for 1 signature. all trials: ["[publickey 1/1] [signature 1/1] error: cosign.VerifyBlobCmd.Exec() returned an error: invalid signature when validating ASN.1 encoded signature"]',
    );
  });

  test("annotationDomain reads the annotations of another domain", () => {
    const resource = signed(deploymentManifest(), [alice], { domain: "sig.example.com" });
    assert.deepEqual(check({ annotationDomain: "sig.example.com", attestors: keyAttestors([alice]) }, resource), [
      "pass",
      PASS_ONE,
    ]);
    assert.match(
      check({ attestors: keyAttestors([alice]) }, resource)[1],
      /YAML manifest not found for this resource: message not found$/,
    );
  });

  test("count 2 of 3: two verifying keys pass even when the third's check errs; one of two needed is an error", () => {
    const resource = signed(deploymentManifest(), [alice, bob]);
    assert.deepEqual(check({ attestors: keyAttestors([alice, carol, bob], 2) }, resource), [
      "pass",
      "verified manifest signatures; manifest verification succeeded; verifiedCount 2; requiredCount 2; message singed by a valid signer: ,singed by a valid signer: ",
    ]);
    const one = signed(deploymentManifest(), [alice]);
    const [status, message] = check({ attestors: keyAttestors([alice, bob, carol], 2) }, one);
    assert.equal(status, "error");
    assert.match(
      message,
      /^error occurred during manifest verification: \.attestors\[0\]\.entries\[1\]\.keys: .*; \.attestors\[0\]\.entries\[2\]\.keys: /,
    );
  });

  test("without count every entry must verify; every attestor set must verify", () => {
    const both = signed(deploymentManifest(), [alice, bob]);
    assert.equal(check({ attestors: keyAttestors([alice, bob]) }, both)[0], "pass");
    const sets = [...keyAttestors([alice]), ...keyAttestors([bob])];
    assert.equal(
      check({ attestors: sets }, both)[1],
      `verified manifest signatures; ${PASS_ONE.slice("verified manifest signatures; ".length)},${PASS_ONE.slice("verified manifest signatures; ".length)}`,
    );
  });

  test("several PEM keys in one publicKeys are one entry each (Kyverno's ExpandStaticKeys)", () => {
    const resource = signed(deploymentManifest(), [bob]);
    const both = {
      attestors: [{ count: 1, entries: [{ keys: { publicKeys: `${alice.publicKey}${bob.publicKey}` } }] }],
    };
    assert.equal(check(both, resource)[0], "pass");
  });

  test("dryRun.enable is an error naming dryRun; a repository is an error naming it", () => {
    const resource = signed(deploymentManifest(), [alice]);
    const [status, message] = check({ attestors: keyAttestors([alice]), dryRun: { enable: true } }, resource);
    assert.equal(status, "error");
    assert.match(message, /validate\.manifests\.dryRun\.enable: true needs a cluster/);
    assert.match(
      check({ attestors: keyAttestors([alice]), repository: "ghcr.io/x/y" }, resource)[1],
      /validate\.manifests\.repository \(ghcr\.io\/x\/y\)/,
    );
    assert.equal(check({ attestors: keyAttestors([alice]), dryRun: { enable: false } }, resource)[0], "pass");
  });

  test("keyless, certificates, k8s:// and KMS keys are errors naming the field once a signature is there to check", () => {
    const resource = signed(deploymentManifest(), [alice]);
    const one = (entry: JsonObject) => ({ attestors: [{ entries: [entry] }] });
    assert.match(
      check(one({ keyless: { subject: "a@b" } }), resource)[1],
      /^error occurred during manifest verification: \.attestors\[0\]\.entries\[0\]\.keyless: .*entries\[0\]\.keyless: keyless signatures/,
    );
    assert.match(
      check(one({ certificates: { cert: "x" } }), resource)[1],
      /entries\[0\]\.certificates: certificate attestors/,
    );
    assert.match(
      check(one({ keys: { publicKeys: "k8s://ns/secret" } }), resource)[1],
      /publicKeys \(k8s:\/\/ns\/secret\): a key in a Kubernetes Secret needs a cluster/,
    );
    assert.match(
      check(one({ keys: { publicKeys: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----" } }), resource)[1],
      /publicKeys holds -----BEGIN CERTIFICATE-----: Kyverno's manifest check loads only PEM public keys/,
    );
    assert.match(
      check(one({ keys: { kms: "awskms://x" } }), resource)[1],
      /publicKeys is empty \(Kyverno's manifest check reads only publicKeys, not keys\.kms\)/,
    );
    // An unsigned resource fails the same way whatever the attestor: no key is needed to see it.
    assert.equal(check(one({ keyless: { subject: "a@b" } }), deploymentManifest())[0], "fail");
    // Another entry reaching the count first decides without the unverifiable one.
    assert.equal(
      check(
        {
          attestors: [
            { count: 1, entries: [{ keys: { publicKeys: alice.publicKey } }, { keyless: { subject: "a@b" } }] },
          ],
        },
        resource,
      )[0],
      "pass",
    );
  });

  test("a signature with a certificate annotation needs Rekor: an error, not a pass", () => {
    const resource = signed(deploymentManifest(), [alice]);
    const meta = resource["metadata"] as JsonObject;
    const withCert = {
      ...resource,
      metadata: {
        ...meta,
        annotations: { ...(meta["annotations"] as JsonObject), "cosign.sigstore.dev/certificate": "eA==" },
      },
    };
    const [status, message] = check({ attestors: keyAttestors([alice]) }, withCert);
    assert.equal(status, "error");
    assert.match(message, /signature 1\/1 carries a cosign\.sigstore\.dev\/certificate or bundle annotation/);
  });

  test("DELETE gives no result; a dry-run admission request passes as in Kyverno", () => {
    const compiled = engine.compile(manifestsPolicy({ attestors: keyAttestors([alice]) }));
    assert.ok(compiled.ok);
    const del = engine.validate(compiled.policy, {
      resource: deploymentManifest(),
      oldResource: deploymentManifest(),
      operation: "DELETE",
      namespaceLabels: {},
    });
    assert.deepEqual(del.rules, []);
    const dry = engine.validate(compiled.policy, {
      resource: deploymentManifest(),
      operation: "CREATE",
      namespaceLabels: {},
      variables: { "request.dryRun": true },
    });
    assert.deepEqual(
      dry.rules.map((r) => [r.status, r.message]),
      [["pass", "allowed because of DryRun request"]],
    );
  });

  test("a key given through a variable is substituted before the check", () => {
    const resource = signed(deploymentManifest(), [alice]);
    const policy = manifestsPolicy({ attestors: [{ entries: [{ keys: { publicKeys: "{{ keys.alice }}" } }] }] });
    const rules = (policy["spec"] as { rules: JsonObject[] }).rules;
    rules[0] = { ...rules[0], context: [{ name: "keys", variable: { value: { alice: alice.publicKey } } }] };
    const compiled = engine.compile(policy);
    assert.ok(compiled.ok, JSON.stringify(!compiled.ok && compiled.problems));
    const result = engine.validate(compiled.policy, { resource, operation: "CREATE", namespaceLabels: {} }).rules;
    assert.deepEqual(
      result.map((r) => [r.status, r.message]),
      [["pass", PASS_ONE]],
    );
  });

  test("a manifests block of the wrong shape is a policy problem naming the field", () => {
    const r = engine.compile(manifestsPolicy({ attestors: [{ count: 0, entries: [] }] }));
    assert.equal(r.ok, false);
    assert.ok(
      !r.ok && r.problems.some((p) => p.path === "spec.rules[0].validate.manifests.attestors[0].count"),
      JSON.stringify(!r.ok && r.problems),
    );
  });
});
