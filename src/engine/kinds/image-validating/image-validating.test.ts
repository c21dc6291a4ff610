/**
 * ImageValidatingPolicy as Kyverno 1.19 runs it (pkg/cel/policies/ivpol, pkg/cel/libs/imageverify),
 * through a registry port that answers from a table: signatures and attestations with cosign keys,
 * matchImageReferences, images, verifyDigest, required, mutateDigest, PolicyExceptions, and an
 * error (never a pass) where Bylaw cannot verify (keyless, notary).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine } from "../../engine.js";
import { err, ok, type JsonObject } from "../../index.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { EnginePorts } from "../../ports.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";
import { imagePorts } from "../../../../test/support/image-ports.js";
import { deployment, pod } from "../../../../test/support/builders.js";
import {
  ecdsaKey,
  inTotoStatement,
  signAttestation,
  signPayload,
  simpleSigning,
} from "../../../../test/support/cosign-signing.js";

const DIGEST = `sha256:${"a".repeat(64)}`;
const SIGNED = "ghcr.io/acme/app:1.0";
const UNSIGNED = "ghcr.io/acme/other:1.0";
const key = ecdsaKey();
const otherKey = ecdsaKey();
const signature = signPayload(key, simpleSigning("ghcr.io/acme/app", DIGEST));
const sbom = signAttestation(
  key,
  inTotoStatement("ghcr.io/acme/app", DIGEST, "https://spdx.dev/Document", { name: "app-sbom" }),
);

function ports(): EnginePorts {
  return imagePorts((reference, request) => {
    const repo = reference.replace(/[:@].*$/, "");
    if (!repo.startsWith("ghcr.io/acme/")) return err("context", `failed to fetch image descriptor: ${reference}`);
    if (request?.form === "digest") return ok({ digest: DIGEST });
    if (request?.form === "signatures")
      return ok({
        digest: DIGEST,
        signatures: repo.endsWith("/app")
          ? [{ payload: signature.payload.toString("base64"), signature: signature.signature }]
          : [],
      });
    if (request?.form === "attestations")
      return ok({
        digest: DIGEST,
        signatures: repo.endsWith("/app") ? [{ payload: sbom.toString("base64"), signature: "" }] : [],
      });
    return ok({ digest: DIGEST, config: {} });
  });
}

const cosignKey = (pem: string, extra: JsonObject = {}): JsonObject => ({
  key: { data: pem },
  ctlog: { insecureIgnoreTlog: true },
  ...extra,
});

function ivpol(spec: JsonObject, kind = "ImageValidatingPolicy"): JsonObject {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind,
    metadata: { name: "check-images", ...(kind.startsWith("Namespaced") ? { namespace: "default" } : {}) },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] },
        ],
      },
      matchImageReferences: [{ glob: "ghcr.io/acme/*" }],
      attestors: [{ name: "cosign", cosign: cosignKey(key.publicPem) }],
      validationConfigurations: { verifyDigest: false, mutateDigest: false },
      validations: [
        {
          expression: "images.containers.map(image, verifyImageSignatures(image, [attestors.cosign])).all(e, e > 0)",
          message: "failed the image Signature verification",
        },
      ],
      ...spec,
    },
  };
}

function compiled(doc: JsonObject): CompiledPolicy {
  const r = createEngine(fakePorts()).compile(doc);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

const appPod = (...images: string[]): JsonObject =>
  pod({ name: "web", containers: images.map((image, i) => ({ name: `c${i}`, image })) });

function validate(doc: JsonObject, resource: JsonObject, exceptions: JsonObject[] = []): [string, string, string][] {
  const engine = createEngine(ports());
  const policy = compiled(doc);
  const compiledExceptions = exceptions.map((e) => {
    const c = engine.compileException(e);
    if (!c.ok) throw new Error(JSON.stringify(c.problems));
    return c.exception;
  });
  const response = engine.validate(policy, {
    resource,
    operation: "CREATE",
    namespaceLabels: {},
    ...(compiledExceptions.length > 0 ? { exceptions: compiledExceptions } : {}),
  });
  return response.rules.map((r) => [r.rule, r.status, r.message]);
}

describe("ImageValidatingPolicy: signatures", () => {
  test("a signed image passes; an unsigned one fails with the validation's message", () => {
    assert.deepEqual(validate(ivpol({}), appPod(SIGNED)), [["check-images", "pass", "success"]]);
    assert.deepEqual(validate(ivpol({}), appPod(UNSIGNED)), [
      ["check-images", "fail", "failed the image Signature verification"],
    ]);
  });

  test("the wrong key fails; the namespaced kind runs the same", () => {
    const wrong = ivpol({ attestors: [{ name: "cosign", cosign: cosignKey(otherKey.publicPem) }] });
    assert.deepEqual(validate(wrong, appPod(SIGNED)), [
      ["check-images", "fail", "failed the image Signature verification"],
    ]);
    const namespaced = ivpol({}, "NamespacedImageValidatingPolicy");
    assert.deepEqual(validate(namespaced, appPod(SIGNED)), [["check-images", "pass", "success"]]);
  });

  test("an image matchImageReferences do not select is not looked at (glob and expression)", () => {
    assert.deepEqual(validate(ivpol({}), appPod("nginx:1.27")), [["check-images", "pass", "success"]]);
    const byExpression = ivpol({ matchImageReferences: [{ expression: "ref.startsWith('ghcr.io/acme/app')" }] });
    assert.deepEqual(validate(byExpression, appPod(SIGNED, UNSIGNED)), [["check-images", "pass", "success"]]);
  });

  test("a glob with classes and alternatives selects as Kyverno's glob library does", () => {
    const byGlob = ivpol({ matchImageReferences: [{ glob: "{docker.io,ghcr.io}/acme/[a-c]pp:*" }] });
    // app is selected (and signed); other is not selected, so it is not looked at.
    assert.deepEqual(validate(byGlob, appPod(SIGNED, UNSIGNED)), [["check-images", "pass", "success"]]);
    const other = ivpol({ matchImageReferences: [{ glob: "ghcr.io/acme/{app,other}:*" }] });
    assert.deepEqual(validate(other, appPod(SIGNED, UNSIGNED)), [
      ["check-images", "fail", "failed the image Signature verification"],
    ]);
  });

  test("a glob that does not compile is the policy's error, naming the field", () => {
    const p = ivpol({ matchImageReferences: [{ glob: "ghcr.io/acme/[app" }] });
    const [rule, status, message] = validate(p, appPod(SIGNED))[0] ?? [];
    assert.deepEqual([rule, status], ["evaluation", "error"]);
    assert.equal(message, "failed to compile policy: spec.matchImageReferences[0].glob: unexpected end of input");
  });

  test("required: an image no attestor checked fails the passing policy", () => {
    const none = ivpol({ validations: [{ expression: "true" }] });
    assert.deepEqual(validate(none, appPod(SIGNED)), [
      [
        "check-images",
        "fail",
        `image ${SIGNED} is not verified: no policy performed a signature or attestation check on it`,
      ],
    ]);
    const either = ivpol({
      validations: [
        { expression: "images.containers.map(i, verifyImageSignatures(i, [attestors.cosign])).exists(e, e > 0)" },
      ],
    });
    assert.deepEqual(validate(either, appPod(SIGNED, UNSIGNED)), [
      ["check-images", "fail", `image ${UNSIGNED} failed signature or attestation verification`],
    ]);
    const notRequired = ivpol({
      validations: [{ expression: "true" }],
      validationConfigurations: { required: false, verifyDigest: false },
    });
    assert.deepEqual(validate(notRequired, appPod(SIGNED)), [["check-images", "pass", "success"]]);
  });

  test("verifyDigest (the default): an image without a digest fails", () => {
    const p = ivpol({ validationConfigurations: {} });
    assert.deepEqual(validate(p, appPod(SIGNED)), [["check-images", "fail", `image ${SIGNED} does not have a digest`]]);
    assert.deepEqual(validate(p, appPod(`${SIGNED}@${DIGEST}`)), [["check-images", "pass", "success"]]);
  });
});

describe("ImageValidatingPolicy: attestations, payloads, image data", () => {
  test("verifyAttestationSignatures and extractPayload read the verified in-toto predicate", () => {
    const p = ivpol({
      attestations: [{ name: "sbom", intoto: { type: "https://spdx.dev/Document" } }],
      validations: [
        {
          expression:
            "images.containers.map(i, verifyAttestationSignatures(i, attestations.sbom, [attestors.cosign])).all(e, e > 0)",
          message: "no sbom",
        },
        { expression: "images.containers.all(i, extractPayload(i, attestations.sbom).name == 'app-sbom')" },
        { expression: "getImageData(images.containers[0]).digest == '" + DIGEST + "'" },
      ],
    });
    assert.deepEqual(validate(p, appPod(SIGNED)), [["check-images", "pass", "success"]]);
    assert.deepEqual(validate(p, appPod(UNSIGNED)), [["check-images", "fail", "no sbom"]]);
  });

  test("an attestation the policy does not declare is an error", () => {
    const p = ivpol({
      validations: [
        { expression: "verifyAttestationSignatures('ghcr.io/acme/app:1.0', 'nope', [attestors.cosign]) > 0" },
      ],
    });
    assert.deepEqual(validate(p, appPod(SIGNED)), [
      ["evaluation", "error", "failed to evaluate policy: attestation not found in policy: nope"],
    ]);
  });
});

describe("ImageValidatingPolicy: what Bylaw cannot verify is an error naming the field", () => {
  const cases: [string, JsonObject, string][] = [
    [
      "keyless",
      { cosign: { keyless: { identities: [{ subject: "x", issuer: "y" }] } } },
      "spec.attestors[0].cosign.keyless",
    ],
    ["notary", { notary: { certs: { value: "x" } } }, "spec.attestors[0].notary"],
    ["the transparency log", { cosign: { key: { data: key.publicPem } } }, "spec.attestors[0].cosign.ctlog"],
  ];
  for (const [name, attestor, field] of cases) {
    test(name, () => {
      const p = ivpol({ attestors: [{ name: "cosign", ...attestor }] });
      const [rule, status, message] = validate(p, appPod(SIGNED))[0] ?? [];
      assert.equal(rule, "evaluation");
      assert.equal(status, "error");
      assert.match(message ?? "", new RegExp(`^failed to evaluate policy: .*${field.replace(/[.[\]]/g, "\\$&")}: `));
    });
  }

  test("a validation that does not compile is the policy's error", () => {
    const p = ivpol({ validations: [{ expression: "verifyImageSignatures(1)" }] });
    const [rule, status, message] = validate(p, appPod(SIGNED))[0] ?? [];
    assert.deepEqual([rule, status], ["evaluation", "error"]);
    assert.match(
      message ?? "",
      /^failed to compile policy: spec\.validations\[0\]\.expression: Invalid value: "verifyImageSignatures\(1\)": ERROR: /,
    );
  });
});

describe("ImageValidatingPolicy: matching, exceptions and mutateDigest", () => {
  test("matchConstraints and matchConditions that do not match give no result", () => {
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } };
    assert.deepEqual(validate(ivpol({}), cm), []);
    const p = ivpol({ matchConditions: [{ name: "never", expression: "false" }] });
    assert.deepEqual(validate(p, appPod(UNSIGNED)), []);
  });

  test("a policies.kyverno.io PolicyException naming the policy skips it", () => {
    const exception = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "PolicyException",
      metadata: { name: "allow-web", namespace: "default" },
      spec: {
        policyRefs: [{ name: "check-images", kind: "ImageValidatingPolicy" }],
        matchConditions: [{ name: "web", expression: "object.metadata.name == 'web'" }],
      },
    };
    assert.deepEqual(validate(ivpol({}), appPod(UNSIGNED), [exception]), [
      ["exception", "skip", "rule is skipped due to policy exception: default/allow-web"],
    ]);
  });

  test("mutateDigest pins selected images to their digest; another image keeps its tag", () => {
    const engine = createEngine(ports());
    const p = compiled(ivpol({ validationConfigurations: {} }));
    const response = engine.mutate(p, {
      resource: appPod(SIGNED, "nginx:1.27"),
      operation: "CREATE",
      namespaceLabels: {},
    });
    assert.deepEqual(response.rules, []);
    const containers = ((response.patchedResource?.["spec"] as JsonObject)["containers"] as JsonObject[]).map(
      (c) => c["image"],
    );
    assert.deepEqual(containers, [`${SIGNED}@${DIGEST}`, "nginx:1.27"]);
    const validated = engine.validate(p, {
      resource: response.patchedResource ?? {},
      operation: "CREATE",
      namespaceLabels: {},
    });
    assert.deepEqual(
      validated.rules.map((r) => [r.status, r.message]),
      [["pass", "success"]],
    );
  });
});

describe("ImageValidatingPolicy: autogen for pod controllers", () => {
  const deploy = (...images: string[]): JsonObject =>
    deployment(
      "web",
      {},
      images.map((image, i) => ({ name: `c${i}`, image })),
    );
  const cronJob = (image: string): JsonObject => ({
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name: "nightly", namespace: "default" },
    spec: {
      schedule: "@daily",
      jobTemplate: { spec: { template: { spec: { containers: [{ name: "c", image }] } } } },
    },
  });

  test("a policy on pods also checks Deployments and CronJobs: the signed image passes, the unsigned one fails", () => {
    const p = ivpol({});
    assert.deepEqual(validate(p, deploy(SIGNED)), [["check-images", "pass", "success"]]);
    assert.deepEqual(validate(p, deploy(SIGNED, UNSIGNED)), [
      ["check-images", "fail", "failed the image Signature verification"],
    ]);
    assert.deepEqual(validate(p, cronJob(UNSIGNED)), [
      ["check-images", "fail", "failed the image Signature verification"],
    ]);
  });

  test("expressions on object.spec read the controller's pod template", () => {
    const p = ivpol({
      matchConditions: [{ name: "has-containers", expression: "size(object.spec.containers) > 0" }],
      validations: [
        { expression: "object.spec.containers.all(c, c.name == 'c0')", message: "bad name" },
        { expression: "images.containers.map(i, verifyImageSignatures(i, [attestors.cosign])).all(e, e > 0)" },
      ],
    });
    assert.deepEqual(validate(p, deploy(SIGNED)), [["check-images", "pass", "success"]]);
    assert.deepEqual(validate(p, appPod(SIGNED)), [["check-images", "pass", "success"]]);
    assert.deepEqual(validate(p, deploy(SIGNED, SIGNED)), [["check-images", "fail", "bad name"]]);
  });

  test("autogen.podControllers.controllers narrows the controllers; other matchConstraints make no copies", () => {
    const onlyJobs = ivpol({ autogen: { podControllers: { controllers: ["jobs"] } } });
    assert.deepEqual(validate(onlyJobs, deploy(UNSIGNED)), []);
    const none = ivpol({ autogen: { podControllers: { controllers: [] } } });
    assert.deepEqual(validate(none, deploy(UNSIGNED)), []);
    const selected = ivpol({
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
        objectSelector: { matchLabels: { app: "x" } },
      },
    });
    assert.deepEqual(validate(selected, deploy(UNSIGNED)), []);
  });

  test("mutateDigest pins a Deployment's template images to their digests", () => {
    const engine = createEngine(ports());
    const p = compiled(ivpol({ validationConfigurations: {} }));
    const response = engine.mutate(p, {
      resource: deploy(SIGNED, "nginx:1.27"),
      operation: "CREATE",
      namespaceLabels: {},
    });
    assert.deepEqual(response.rules, []);
    const spec = ((response.patchedResource?.["spec"] as JsonObject)["template"] as JsonObject)["spec"] as JsonObject;
    assert.deepEqual(
      (spec["containers"] as JsonObject[]).map((c) => c["image"]),
      [`${SIGNED}@${DIGEST}`, "nginx:1.27"],
    );
  });
});
