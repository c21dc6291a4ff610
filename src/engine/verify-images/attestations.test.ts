/**
 * verifyImages `attestations` as Kyverno v1.19 runs them (imageverifier.go `verifyAttestations`,
 * `verifyAttestation`, `EvaluateConditions`; cosign's `VerifyImageAttestations`): DSSE envelopes
 * signed over their PAE encoding, the statement's subject digest, the predicate type, conditions
 * over the predicate merged into the context, `count` over attestors; errors where Bylaw cannot check.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine } from "../engine.js";
import { err, ok, type JsonObject, type JsonValue } from "../index.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { EnginePorts, ImageDataRequest } from "../ports.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { imagePorts } from "../../../test/support/image-ports.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { imageVerifyGaps } from "./gaps.js";
import {
  ecdsaKey,
  inTotoStatement,
  signAttestation,
  signPayload,
  simpleSigning,
} from "../../../test/support/cosign-signing.js";

const DIGEST = `sha256:${"a".repeat(64)}`;
const IMAGE = "ghcr.io/acme/app:1.0";
const BY_DIGEST = `ghcr.io/acme/app@${DIGEST}`;
const SLSA = "https://slsa.dev/provenance/v0.2";
const VULN = "cosign.sigstore.dev/attestation/vuln/v1";
const key = ecdsaKey();
const otherKey = ecdsaKey();
const provenance = (builder: string, digest = DIGEST, type = SLSA): Buffer =>
  signAttestation(
    key,
    inTotoStatement("ghcr.io/acme/app", digest, type, { builder: { id: builder }, buildType: "tekton" }),
  );

function ports(envelopes: readonly Buffer[], asked: ImageDataRequest[] = []): EnginePorts {
  const layers = (form: string | undefined) =>
    form === "attestations"
      ? envelopes.map((e) => ({ payload: e.toString("base64"), signature: "" }))
      : [signPayload(key, simpleSigning("ghcr.io/acme/app", DIGEST))].map((s) => ({
          payload: s.payload.toString("base64"),
          signature: s.signature,
        }));
  return imagePorts((reference, request) => {
    if (reference !== IMAGE && reference !== BY_DIGEST)
      return err("unavailable", `image data for ${reference} not found`);
    return ok(request?.form === "digest" ? { digest: DIGEST } : { digest: DIGEST, signatures: layers(request?.form) });
  }, asked);
}

const keys = (pem: string): JsonObject => ({ keys: { publicKeys: pem, rekor: { ignoreTlog: true } } });
const builderIs = (id: string): JsonValue => [
  { all: [{ key: "{{ builder.id }}", operator: "Equals", value: id, message: "the builder is {{ builder.id }}" }] },
];

function policy(attestations: JsonValue, extra: JsonObject = {}): CompiledPolicy {
  const entry = {
    imageReferences: ["ghcr.io/acme/*"],
    attestations,
    mutateDigest: false,
    verifyDigest: false,
    ...extra,
  };
  const r = createEngine(fakePorts()).compile(
    clusterPolicy(
      "check-attestations",
      [{ name: "attest", match: { any: [{ resources: { kinds: ["Pod"] } }] }, verifyImages: [entry] }],
      { validationFailureAction: "Enforce", background: false },
    ),
  );
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

function run(p: CompiledPolicy, envelopes: readonly Buffer[], image = IMAGE, asked: ImageDataRequest[] = []) {
  const engine = createEngine(ports(envelopes, asked));
  const resource = pod({ name: "web", containers: [{ name: "app", image }] });
  const mutated = engine.mutate(p, { resource, operation: "CREATE", namespaceLabels: {} });
  const validated = engine.validate(p, {
    resource: mutated.patchedResource ?? resource,
    operation: "CREATE",
    namespaceLabels: {},
  });
  return {
    mutate: mutated.rules.map((r) => [r.status, r.message]),
    validate: validated.rules.map((r) => [r.status, r.message]),
  };
}

const slsa = (attestors: JsonValue, conditions: JsonValue = builderIs("tekton-chains")): JsonValue => [
  { type: SLSA, attestors, conditions },
];
const PATH = ".attestations[0].attestors[0].entries[0].keys";

describe("verifyImages attestations with keys", () => {
  test("an attestation of the type, signed by the key, about the image, whose conditions hold, passes", () => {
    const asked: ImageDataRequest[] = [];
    const r = run(policy(slsa([{ entries: [keys(key.publicPem)] }])), [provenance("tekton-chains")], IMAGE, asked);
    // Kyverno learns no digest from attestations: the image is named as the pod names it.
    assert.deepEqual(r.mutate, [["pass", `verified image attestations for ${IMAGE}`]]);
    assert.deepEqual(r.validate, [["pass", "image verified"]]);
    assert.ok(asked.some((a) => a.form === "attestations"));
  });

  test("conditions that do not hold fail with Kyverno's message and the conditions' own", () => {
    const r = run(policy(slsa([{ entries: [keys(key.publicPem)] }])), [provenance("github-actions")]);
    const why = `${PATH}: attestation checks failed for ${IMAGE} and predicate ${SLSA}: the builder is github-actions`;
    assert.deepEqual(r.mutate, [
      ["fail", `image attestations verification failed, verifiedCount: 0, requiredCount: 1, error: ${why}`],
    ]);
    assert.deepEqual(r.validate, [["fail", `unverified image ${IMAGE}`]]);
  });

  test("the deprecated predicateType names the type; the rule's own context stays visible beside the predicate", () => {
    const conditions = [
      { any: [{ key: "{{ request.object.metadata.name }}-{{ buildType }}", operator: "Equals", value: "web-tekton" }] },
    ];
    const r = run(policy([{ predicateType: SLSA, attestors: [{ entries: [keys(key.publicPem)] }], conditions }]), [
      provenance("x"),
    ]);
    assert.deepEqual(r.mutate, [["pass", `verified image attestations for ${IMAGE}`]]);
  });

  test("the attestation's name holds the first predicate fetched, for its conditions", () => {
    const conditions = [{ all: [{ key: "{{ slsa.builder.id }}", operator: "Equals", value: "tekton-chains" }] }];
    const p = (name: string) =>
      policy([{ type: SLSA, name, attestors: [{ entries: [keys(key.publicPem)] }], conditions }]);
    assert.deepEqual(run(p("slsa"), [provenance("tekton-chains")]).mutate, [
      ["pass", `verified image attestations for ${IMAGE}`],
    ]);
    const unnamed = run(p("other"), [provenance("tekton-chains")]).mutate[0];
    assert.equal(unnamed?.[0], "fail");
    assert.match(
      String(unnamed?.[1]),
      /error: \.attestations\[0\]\.attestors\[0\]\.entries\[0\]\.keys: failed to check attestations: failed to substitute variables in attestation conditions: .*slsa\.builder\.id/,
    );
  });

  test("a wrong key, a statement about another digest, or another payload type: no matching attestations", () => {
    const wrongKey = run(policy(slsa([{ entries: [keys(otherKey.publicPem)] }])), [provenance("tekton-chains")]);
    assert.deepEqual(wrongKey.mutate, [
      [
        "fail",
        "image attestations verification failed, verifiedCount: 0, requiredCount: 1, error: no matching attestations: accepted signatures do not match threshold, Found: 0, Expected 1",
      ],
    ]);
    const otherDigest = run(policy(slsa([{ entries: [keys(key.publicPem)] }])), [
      provenance("tekton-chains", `sha256:${"b".repeat(64)}`),
    ]);
    assert.match(
      String(otherDigest.mutate[0]?.[1]),
      /error: no matching attestations: no matching subject digest found$/,
    );
    const otherPayload = signAttestation(
      key,
      inTotoStatement("ghcr.io/acme/app", DIGEST, SLSA, {}),
      "application/json",
    );
    assert.match(
      String(run(policy(slsa([{ entries: [keys(key.publicPem)] }])), [otherPayload]).mutate[0]?.[1]),
      /invalid payloadType application\/json on envelope\. Expected application\/vnd\.in-toto\+json/,
    );
  });

  test("an image named by digest is named so; attestations under required annotations fail, as an envelope carries none (Kyverno's checkAnnotations)", () => {
    assert.deepEqual(
      run(policy(slsa([{ entries: [keys(key.publicPem)] }])), [provenance("tekton-chains")], BY_DIGEST).mutate,
      [["pass", `verified image attestations for ${BY_DIGEST}`]],
    );
    const annotated = run(policy(slsa([{ entries: [keys(key.publicPem)] }]), { annotations: { team: "a" } }), [
      provenance("tekton-chains"),
    ]);
    assert.deepEqual(annotated.mutate, [
      [
        "fail",
        "image attestations verification failed, verifiedCount: 0, requiredCount: 1, error: no signature matched the required annotations",
      ],
    ]);
  });

  test("DSSE's own texts: an envelope without signatures, a signature that is not base64", () => {
    const envelope = (signatures: JsonValue): Buffer =>
      Buffer.from(
        JSON.stringify({
          payloadType: "application/vnd.in-toto+json",
          payload: Buffer.from(JSON.stringify(inTotoStatement("ghcr.io/acme/app", DIGEST, SLSA, {}))).toString(
            "base64",
          ),
          signatures,
        }),
      );
    const unsigned = run(policy(slsa([{ entries: [keys(key.publicPem)] }])), [envelope([])]);
    assert.match(String(unsigned.mutate[0]?.[1]), /error: no matching attestations: no signature found$/);
    const garbled = run(policy(slsa([{ entries: [keys(key.publicPem)] }])), [envelope([{ sig: "%%%" }])]);
    assert.match(
      String(garbled.mutate[0]?.[1]),
      /error: no matching attestations: unable to base64 decode payload \(is payload in the right format\?\)$/,
    );
  });

  test("attestations of another type only, or none at all, fail", () => {
    const other = run(policy(slsa([{ entries: [keys(key.publicPem)] }])), [provenance("tekton-chains", DIGEST, VULN)]);
    assert.deepEqual(other.mutate, [
      [
        "fail",
        `image attestations verification failed, verifiedCount: 0, requiredCount: 1, error: ${PATH}: attestions not found for predicate type ${SLSA}`,
      ],
    ]);
    const none = run(policy(slsa([{ entries: [keys(key.publicPem)] }])), []);
    assert.equal(none.mutate[0]?.[0], "fail");
    assert.match(String(none.mutate[0]?.[1]), /error: no matching attestations: $/);
  });

  test("count: enough attestors verified pass; all are needed when count is unset", () => {
    const two = [keys(otherKey.publicPem), keys(key.publicPem)];
    assert.deepEqual(
      run(policy(slsa([{ count: 1, entries: two }])), [provenance("tekton-chains")]).mutate[0]?.[0],
      "pass",
    );
    const all = run(policy(slsa([{ entries: two }])), [provenance("tekton-chains")]).mutate[0];
    assert.match(
      String(all?.[1]),
      /^image attestations verification failed, verifiedCount: 1, requiredCount: 2, error: no matching attestations/,
    );
  });

  test("attestors and attestations both: the signatures first, then the attestations", () => {
    const p = policy(slsa([{ entries: [keys(key.publicPem)] }]), { attestors: [{ entries: [keys(key.publicPem)] }] });
    assert.deepEqual(run(p, [provenance("tekton-chains")]).mutate, [
      ["pass", `verified image attestations for ${BY_DIGEST}`],
    ]);
    const badSignatures = policy(slsa([{ entries: [keys(key.publicPem)] }]), {
      attestors: [{ entries: [keys(otherKey.publicPem)] }],
    });
    assert.match(
      String(run(badSignatures, [provenance("tekton-chains")]).mutate[0]?.[1]),
      /^failed to verify image .*no matching signatures/,
    );
  });

  test("what Bylaw cannot check is an error naming the field, never a pass", () => {
    const cases: [JsonValue, RegExp][] = [
      [[{ type: SLSA }], /\.attestations\[0\]\.attestors: attestations with no attestors are verified keylessly/],
      [
        slsa([{ entries: [{ keyless: { issuer: "https://token.actions.githubusercontent.com", subject: "x" } }] }]),
        /\.entries\[0\]\.keyless: keyless verification/,
      ],
      [
        slsa([{ entries: [{ keys: { publicKeys: key.publicPem } }] }]),
        /\.entries\[0\]\.keys: Bylaw does not check the Rekor transparency log/,
      ],
      [
        slsa([{ entries: [{ attestor: { entries: [keys(key.publicPem)] } }] }]),
        /\.entries\[0\]\.attestor: nested attestor sets/,
      ],
    ];
    for (const [attestations, message] of cases) {
      const r = run(policy(attestations), [provenance("tekton-chains")]);
      assert.equal(r.mutate[0]?.[0], "error", JSON.stringify(attestations));
      assert.match(String(r.mutate[0]?.[1]), message);
      assert.equal(r.validate[0]?.[0], "error");
    }
    assert.deepEqual(run(policy([{ attestors: [{ entries: [keys(key.publicPem)] }] }]), []).mutate, [
      ["fail", ".attestations[0]: missing type"],
    ]);
  });

  test("read from the policy alone (status_ready), attestations Bylaw cannot check are named; key attestations are not", () => {
    const gaps = (attestations: JsonValue): string | undefined =>
      imageVerifyGaps({ name: "attest", verifyImages: [{ imageReferences: ["*"], attestations }] });
    assert.equal(gaps(slsa([{ entries: [keys(key.publicPem)] }])), undefined);
    assert.equal(gaps([{ type: SLSA }]), "verifyImages[0].attestations[0].attestors (none: keyless)");
    assert.equal(
      gaps(slsa([{ entries: [{ keyless: {} }, { attestor: { entries: [keys(key.publicPem)] } }] }])),
      "verifyImages[0].attestations[0].attestors[0].entries[0].keyless; verifyImages[0].attestations[0].attestors[0].entries[1].attestor",
    );
  });
});
