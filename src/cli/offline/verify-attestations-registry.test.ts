/**
 * verifyImages attestations end to end: `bylaw apply --registry` and `bylaw test --registry`
 * against a registry the test serves, holding images attested as `cosign attest --key` attests them
 * (an in-toto statement in a DSSE envelope signed with an ECDSA P-256 key made here, pushed as the
 * layer of the manifest tagged sha256-<hex>.att). An attestation whose conditions hold passes; one
 * whose conditions fail, one signed by another key and an image with none fail with Kyverno's messages.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../main.js";
import { recordingIo } from "../../../test/support/fake-io.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { TestRegistry } from "../../../test/support/test-registry.js";
import { ecdsaKey, inTotoStatement, signAttestation } from "../../../test/support/cosign-signing.js";

const SLSA = "https://slsa.dev/provenance/v0.2";
const registry = new TestRegistry();
const key = ecdsaKey();
const otherKey = ecdsaKey();
const NAMES = ["trusted", "untrusted", "forged", "bare"];
const digests: Record<string, string> = {};

const policy = (): string => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: attested-images}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: check-provenance
      match: {any: [{resources: {kinds: [Pod]}}]}
      verifyImages:
        - imageReferences: ["${registry.host}/team/*"]
          mutateDigest: false
          attestations:
            - type: ${SLSA}
              attestors:
                - entries:
                    - keys:
                        publicKeys: ${JSON.stringify(key.publicPem)}
                        rekor: {ignoreTlog: true}
              conditions:
                - all:
                    - key: "{{ builder.id }}"
                      operator: Equals
                      value: https://tekton.dev/chains/v2
`;
const pods = (): string =>
  NAMES.map(
    (n) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: ${n}, namespace: default}\nspec: {containers: [{name: c, image: "${registry.host}/team/${n}@${digests[n] ?? ""}"}]}\n`,
  ).join("---\n");

interface ApplyJson {
  results: { resource: string; result: string; message: string }[];
}

describe("verifyImages attestations against a registry serving cosign attestations", () => {
  before(async () => {
    await registry.start();
    for (const n of NAMES) digests[n] = registry.add(`team/${n}`, "1", { config: { config: {} } });
    const attest = (n: string, builder: string, k = key) =>
      registry.attest(`team/${n}`, digests[n] ?? "", [
        signAttestation(
          k,
          inTotoStatement(`${registry.host}/team/${n}`, digests[n] ?? "", SLSA, { builder: { id: builder } }),
        ),
      ]);
    attest("trusted", "https://tekton.dev/chains/v2");
    attest("untrusted", "https://example.com/laptop");
    attest("forged", "https://tekton.dev/chains/v2", otherKey);
  });
  after(() => registry.stop());

  test("bylaw apply --registry: the attested image passes; failed conditions, another key and no attestation fail", async () => {
    const dir = tempTree({ "p.yaml": policy(), "pods.yaml": pods() });
    const io = recordingIo();
    const code = await main(
      ["apply", join(dir, "p.yaml"), "-r", join(dir, "pods.yaml"), "--output-format", "json", "--registry"],
      io,
    );
    assert.equal(code, 1, io.stderr.join("\n"));
    const rows: Record<string, [string, string][]> = {};
    for (const r of (JSON.parse(io.stdout.join("\n")) as ApplyJson).results)
      (rows[r.resource.split("/").pop() ?? ""] ??= []).push([r.result, r.message]);
    const image = (n: string): string => `${registry.host}/team/${n}@${digests[n] ?? ""}`;
    const failed = (why: string): string =>
      `image attestations verification failed, verifiedCount: 0, requiredCount: 1, error: ${why}`;
    assert.deepEqual(rows["trusted"], [
      ["pass", `verified image attestations for ${image("trusted")}`],
      ["pass", "image verified"],
    ]);
    assert.deepEqual(rows["untrusted"]?.[0], [
      "fail",
      failed(
        `.attestations[0].attestors[0].entries[0].keys: attestation checks failed for ${image("untrusted")} and predicate ${SLSA}: `,
      ),
    ]);
    assert.deepEqual(rows["forged"]?.[0], [
      "fail",
      failed("no matching attestations: accepted signatures do not match threshold, Found: 0, Expected 1"),
    ]);
    assert.deepEqual(rows["bare"]?.[0], ["fail", failed("no matching attestations: ")]);
    assert.ok(
      registry.seen.some(
        (s) => s.path === `/v2/team/trusted/manifests/${(digests["trusted"] ?? "").replace(":", "-")}.att`,
      ),
    );
  });

  test("bylaw test --registry: the expected rows hold; without --registry they are errors", async () => {
    const suite = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: attested}
policies: [p.yaml]
resources: [pods.yaml]
results:
  - {policy: attested-images, rule: check-provenance, resources: [trusted], kind: Pod, result: pass}
  - {policy: attested-images, rule: check-provenance, resources: [untrusted, forged, bare], kind: Pod, result: fail}
`;
    const dir = tempTree({ "p.yaml": policy(), "pods.yaml": pods(), "kyverno-test.yaml": suite });
    const io = recordingIo();
    assert.equal(
      await main(["test", dir, "--registry", "-o", "bylaw-json"], io),
      0,
      io.stdout.join("\n") + io.stderr.join("\n"),
    );
    assert.equal(await main(["test", dir, "-o", "bylaw-json"], recordingIo()), 1);
  });
});
