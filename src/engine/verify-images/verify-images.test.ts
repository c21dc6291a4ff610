/**
 * verifyImages as Kyverno v1.19 runs it (pkg/engine/internal/imageverifier.go, handlers
 * mutate_image.go and validate_image.go), with cosign public keys, through a registry port that
 * answers from a table: images named by Kyverno's ImageInfo.String(), imageReferences and
 * skipImageReferences, verifyDigest / required / mutateDigest, the verify-images annotation,
 * signature checks with cosign's messages, count and nested attestors, and an error (never a pass)
 * wherever Bylaw cannot check.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine } from "../engine.js";
import { err, ok, type JsonObject, type JsonValue } from "../index.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { EnginePorts, ImageDataRequest } from "../ports.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { imagePorts } from "../../../test/support/image-ports.js";
import { clusterPolicy, deployment, pod } from "../../../test/support/builders.js";
import { ecdsaKey, signPayload, simpleSigning, type TestSignature } from "../../../test/support/cosign-signing.js";
import { LEAF_KEY_PEM, LEAF_PEM, LEAF_VALID_AT, OTHER_ROOT_PEM, ROOT_PEM } from "../../../test/support/test-certs.js";
import { createPrivateKey } from "node:crypto";

const DIGEST = `sha256:${"a".repeat(64)}`;
const IMAGE = "ghcr.io/acme/app:1.0";
const key = ecdsaKey();
const otherKey = ecdsaKey();
const good = signPayload(key, simpleSigning("ghcr.io/acme/app", DIGEST, { team: "a" }));

interface Table {
  readonly digests?: Readonly<Record<string, string>>;
  readonly signatures?: Readonly<Record<string, readonly TestSignature[]>>;
}

function ports(table: Table, asked: ImageDataRequest[] = [], nowMillis?: number): EnginePorts {
  return imagePorts(
    (reference, request) => {
      const digest = table.digests?.[reference];
      if (digest === undefined)
        return err(
          "unavailable",
          `image data for ${reference} not found in the context (no registry access: run with --registry to read it from the registry)`,
        );
      if (request?.form === "digest") return ok({ digest });
      const sigs = table.signatures?.[`${reference}|${request?.repository ?? ""}`] ?? [];
      return ok({
        digest,
        signatures: sigs.map((s) => ({ payload: s.payload.toString("base64"), signature: s.signature })),
      });
    },
    asked,
    nowMillis,
  );
}

const signedTable: Table = {
  digests: { [IMAGE]: DIGEST, [`ghcr.io/acme/app@${DIGEST}`]: DIGEST },
  signatures: { [`${IMAGE}|`]: [good], [`ghcr.io/acme/app@${DIGEST}|`]: [good] },
};
const podMatch = { any: [{ resources: { kinds: ["Pod"] } }] };
const keys = (pem: string, extra: JsonObject = {}): JsonObject => ({
  keys: { publicKeys: pem, rekor: { ignoreTlog: true }, ...extra },
});

function policy(entry: JsonObject, rule: JsonObject = {}): CompiledPolicy {
  const engine = createEngine(fakePorts());
  const r = engine.compile(
    clusterPolicy("check-images", [{ name: "verify", match: podMatch, verifyImages: [entry], ...rule }], {
      validationFailureAction: "Enforce",
      background: false,
    }),
  );
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

function run(p: CompiledPolicy, resource: JsonObject, table: Table = signedTable, nowMillis?: number) {
  const engine = createEngine(ports(table, [], nowMillis));
  const mutated = engine.mutate(p, { resource, operation: "CREATE", namespaceLabels: {} });
  const patched = mutated.patchedResource ?? resource;
  const validated = engine.validate(p, { resource: patched, operation: "CREATE", namespaceLabels: {} });
  return {
    mutate: mutated.rules.map((r) => [r.rule, r.status, r.message]),
    validate: validated.rules.map((r) => [r.rule, r.status, r.message]),
    patched,
  };
}

const appPod = (image = IMAGE): JsonObject => pod({ name: "web", containers: [{ name: "app", image }] });
const containerImage = (r: JsonValue, list = "containers", i = 0): unknown =>
  (((r as JsonObject)["spec"] as JsonObject)[list] as JsonObject[])[i]?.["image"];
const annotation = (r: JsonObject): unknown =>
  ((r["metadata"] as JsonObject)["annotations"] as JsonObject | undefined)?.["kyverno.io/verify-images"];

describe("verifyImages: images and references", () => {
  test("containers, initContainers and ephemeralContainers are matched by wildcard, named with their registry", () => {
    const p = policy({
      imageReferences: ["docker.io/library/*", "docker.io/nginx*"],
      verifyDigest: true,
      required: false,
      mutateDigest: false,
    });
    const resource = pod({
      name: "web",
      containers: [
        { name: "a", image: "nginx:1.27" },
        { name: "b", image: "quay.io/x/y:1" },
      ],
    });
    (resource["spec"] as JsonObject)["initContainers"] = [
      { name: "i", image: "docker.io/library/busybox@sha256:" + "b".repeat(64) },
    ];
    (resource["spec"] as JsonObject)["ephemeralContainers"] = [{ name: "e", image: "nginx" }];
    const r = run(p, resource);
    assert.deepEqual(r.mutate, []);
    assert.deepEqual(r.validate, [["verify", "fail", "missing digest for docker.io/nginx:1.27"]]);
    const digested = pod({
      name: "web",
      containers: [
        { name: "a", image: `nginx@sha256:${"c".repeat(64)}` },
        { name: "b", image: "quay.io/x/y:1" },
      ],
    });
    assert.deepEqual(run(p, digested).validate, [["verify", "pass", "image verified"]]);
  });

  test("a resource with no listed image has no result", () => {
    const p = policy({ imageReferences: ["ghcr.io/*"], attestors: [{ entries: [keys(key.publicPem)] }] });
    assert.deepEqual(run(p, appPod("nginx:1")), { mutate: [], validate: [], patched: appPod("nginx:1") });
  });

  test("skipImageReferences skip the image, and the rule when it was the only one", () => {
    const p = policy({
      imageReferences: ["ghcr.io/*"],
      skipImageReferences: ["ghcr.io/acme/*"],
      verifyDigest: false,
      mutateDigest: false,
      attestors: [{ entries: [keys(key.publicPem)] }],
    });
    const r = run(p, appPod());
    assert.deepEqual(r.mutate, [
      ["verify", "skip", `skipping image reference image ${IMAGE}, policy check-images ruleName verify`],
    ]);
    assert.equal(annotation(r.patched), JSON.stringify({ [IMAGE]: "skip" }));
    assert.deepEqual(r.validate, [["verify", "skip", `image skipped, skipped images: ${IMAGE}`]]);
  });

  test("pod controllers are verified through autogen, in their pod template", () => {
    const p = policy({ imageReferences: ["ghcr.io/*"], attestors: [{ entries: [keys(key.publicPem)] }] });
    const engine = createEngine(ports(signedTable));
    const out = engine.mutate(p, {
      resource: deployment("web", {}, [{ name: "app", image: IMAGE }]),
      operation: "CREATE",
      namespaceLabels: {},
    });
    assert.deepEqual(
      out.rules.map((r) => [r.rule, r.status]),
      [["autogen-verify", "pass"]],
    );
    const template = ((out.patchedResource?.["spec"] as JsonObject)["template"] as JsonObject)["spec"] as JsonObject;
    assert.equal((template["containers"] as JsonObject[])[0]?.["image"], `${IMAGE}@${DIGEST}`);
  });
});

describe("verifyImages: imageExtractors", () => {
  const taskMatch = { any: [{ resources: { kinds: ["Task", "Rollout"] } }] };
  const verify = { imageReferences: ["ghcr.io/acme/*"], attestors: [{ entries: [keys(key.publicPem)] }] };
  const task = (steps: JsonValue): JsonObject => ({
    apiVersion: "tekton.dev/v1",
    kind: "Task",
    metadata: { name: "build", namespace: "ci" },
    spec: { steps },
  });

  test("a custom extractor finds images in another kind; the digest is written where it found them", () => {
    const p = policy(verify, { match: taskMatch, imageExtractors: { Task: [{ path: "/spec/steps/*/image" }] } });
    const r = run(p, task([{ name: "compile", image: IMAGE }]));
    assert.deepEqual(r.mutate, [["verify", "pass", `verified image signatures for ${IMAGE}`]]);
    assert.equal(((r.patched["spec"] as JsonObject)["steps"] as JsonObject[])[0]?.["image"], `${IMAGE}@${DIGEST}`);
    assert.deepEqual(r.validate, [["verify", "pass", "image verified"]]);
  });

  test("value and key name the fields; jmesPath transforms what was found", () => {
    const p = policy(
      { ...verify, mutateDigest: false, verifyDigest: false },
      {
        match: taskMatch,
        imageExtractors: { Task: [{ path: "/spec/steps/*", value: "ref", key: "name", jmesPath: "split(@, '|')[0]" }] },
      },
    );
    assert.deepEqual(
      run(p, task([{ name: "compile", ref: `${IMAGE}|extra` }])).mutate.map((x) => x[1]),
      ["pass"],
    );
  });

  test("a kind with neither extractors of its own nor Kyverno's standard ones has no images", () => {
    const p = policy(verify, { match: taskMatch });
    const rollout = {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Rollout",
      metadata: { name: "r", namespace: "ci" },
      spec: { template: { spec: { containers: [{ name: "c", image: IMAGE }] } } },
    };
    assert.deepEqual(run(p, rollout), { mutate: [], validate: [], patched: rollout });
  });

  test("an image that is not a reference is the rule's error", () => {
    const p = policy(verify, { match: taskMatch, imageExtractors: { Task: [{ path: "/spec/steps/*/image" }] } });
    const r = run(p, task([{ name: "compile", image: "not an image" }]));
    assert.deepEqual(r.mutate, [
      ["verify", "error", "failed to instantiate handler: invalid image 'not an image' (invalid reference format)"],
    ]);
  });
});

describe("verifyImages: digests", () => {
  test("mutateDigest rewrites the tag to the digest the registry names", () => {
    const p = policy({ imageReferences: ["ghcr.io/*"], required: false });
    const r = run(p, appPod());
    assert.deepEqual(r.mutate, [["verify", "pass", "mutated image digest"]]);
    assert.equal(containerImage(r.patched), `${IMAGE}@${DIGEST}`);
    assert.equal(annotation(r.patched), undefined, "no signature was checked: no annotation");
    assert.deepEqual(r.validate, [["verify", "pass", "image verified"]]);
  });

  test("without registry access the digest is an error naming --registry, and verifyDigest then fails", () => {
    const r = run(policy({ imageReferences: ["ghcr.io/*"], required: false }), appPod(), {});
    assert.equal(r.mutate[0]?.[1], "error");
    assert.match(String(r.mutate[0]?.[2]), /^failed to update digest: .*--registry/);
    assert.deepEqual(r.validate, [["verify", "fail", `missing digest for ${IMAGE}`]]);
  });
});

describe("verifyImages: cosign public keys", () => {
  const entry = (attestors: JsonValue, extra: JsonObject = {}): JsonObject => ({
    imageReferences: ["ghcr.io/acme/*"],
    attestors,
    ...extra,
  });

  test("a good signature passes, the digest and the annotation are written", () => {
    const r = run(policy(entry([{ entries: [keys(key.publicPem)] }])), appPod());
    assert.deepEqual(r.mutate, [["verify", "pass", `verified image signatures for ${IMAGE}`]]);
    assert.equal(containerImage(r.patched), `${IMAGE}@${DIGEST}`);
    assert.equal(annotation(r.patched), JSON.stringify({ [`ghcr.io/acme/app@${DIGEST}`]: "pass" }));
    assert.deepEqual(r.validate, [["verify", "pass", "image verified"]]);
  });

  test("the wrong key fails with cosign's message, and required fails the validate side", () => {
    const r = run(policy(entry([{ entries: [keys(otherKey.publicPem)] }])), appPod());
    assert.deepEqual(r.mutate, [
      [
        "verify",
        "fail",
        `failed to verify image ${IMAGE}: .attestors[0].entries[0].keys: no matching signatures: invalid signature when validating ASN.1 encoded signature`,
      ],
    ]);
    assert.equal(annotation(r.patched), JSON.stringify({ [`ghcr.io/acme/app@${DIGEST}`]: "fail" }));
    assert.deepEqual(r.validate, [["verify", "fail", `unverified image ghcr.io/acme/app@${DIGEST}`]]);
  });

  test("a payload naming another digest fails", () => {
    const tampered = signPayload(key, simpleSigning("ghcr.io/acme/app", `sha256:${"0".repeat(64)}`));
    const r = run(
      policy(entry([{ entries: [keys(key.publicPem)] }], { mutateDigest: false, verifyDigest: false })),
      appPod(),
      { ...signedTable, signatures: { [`${IMAGE}|`]: [tampered] } },
    );
    assert.deepEqual(r.mutate, [
      [
        "verify",
        "fail",
        `failed to verify image ${IMAGE}: .attestors[0].entries[0].keys: no matching signatures: invalid or missing digest in claim: sha256:${"0".repeat(64)}`,
      ],
    ]);
  });

  test("an unsigned image fails", () => {
    const r = run(
      policy(entry([{ entries: [keys(key.publicPem)] }], { mutateDigest: false, verifyDigest: false })),
      appPod(),
      { digests: signedTable.digests ?? {} },
    );
    assert.deepEqual(r.mutate, [
      ["verify", "fail", `failed to verify image ${IMAGE}: .attestors[0].entries[0].keys: no signatures found`],
    ]);
    assert.deepEqual(r.validate, [["verify", "fail", `unverified image ${IMAGE}`]]);
  });

  test("count: enough entries verified pass; without count every entry must verify", () => {
    const two = [keys(otherKey.publicPem), keys(key.publicPem)];
    assert.equal(run(policy(entry([{ count: 1, entries: two }])), appPod()).mutate[0]?.[1], "pass");
    const all = run(policy(entry([{ entries: two }])), appPod());
    assert.equal(all.mutate[0]?.[1], "fail");
    assert.match(String(all.mutate[0]?.[2]), /\.attestors\[0\]\.entries\[0\]\.keys: no matching signatures/);
  });

  test("a set that falls short with no entry failing (count above its entries, or no entries) gives Kyverno's 'invalid response: nil', an error", () => {
    const short = run(
      policy(entry([{ count: 2, entries: [keys(key.publicPem)] }], { mutateDigest: false, verifyDigest: false })),
      appPod(),
    );
    assert.deepEqual(short.mutate, [["verify", "error", "invalid response: nil"]]);
    assert.deepEqual(short.validate, [["verify", "error", "invalid response: nil"]]);
    assert.deepEqual(
      run(policy(entry([{ entries: [] }], { mutateDigest: false, verifyDigest: false })), appPod()).mutate,
      [["verify", "error", "invalid response: nil"]],
    );
    const nestedShort = run(
      policy(
        entry([{ entries: [{ attestor: { count: 2, entries: [keys(key.publicPem)] } }] }], {
          mutateDigest: false,
          verifyDigest: false,
        }),
      ),
      appPod(),
    );
    assert.deepEqual(
      nestedShort.mutate,
      [["verify", "error", "invalid response: nil"]],
      "a nested set's empty answer counts, and leaves no response",
    );
  });

  test("several PEM keys in one entry are one entry each; nested attestor sets are verified with their path", () => {
    const both = `${otherKey.publicPem}${key.publicPem}`;
    assert.equal(run(policy(entry([{ count: 1, entries: [keys(both)] }])), appPod()).mutate[0]?.[1], "pass");
    const nested = run(policy(entry([{ entries: [{ attestor: { entries: [keys(otherKey.publicPem)] } }] }])), appPod());
    assert.match(
      String(nested.mutate[0]?.[2]),
      /: \.attestors\[0\]\.entries\[0\]\.attestor\.entries\[0\]\.keys: no matching signatures/,
    );
  });

  test("annotations must be in a verified payload, with Kyverno's checkAnnotations message", () => {
    assert.equal(
      run(policy(entry([{ entries: [keys(key.publicPem)] }], { annotations: { team: "a" } })), appPod()).mutate[0]?.[1],
      "pass",
    );
    const wrong = run(policy(entry([{ entries: [{ ...keys(key.publicPem), annotations: { team: "b" } }] }])), appPod());
    assert.deepEqual(wrong.mutate, [
      [
        "verify",
        "fail",
        `failed to verify image ${IMAGE}: .attestors[0].entries[0].keys: no signature matched the required annotations`,
      ],
    ]);
    const plain = signPayload(key, simpleSigning("ghcr.io/acme/app", DIGEST));
    const annotated = policy(
      entry([{ entries: [keys(key.publicPem)] }], {
        annotations: { team: "a" },
        mutateDigest: false,
        verifyDigest: false,
      }),
    );
    assert.equal(
      run(annotated, appPod(), { ...signedTable, signatures: { [`${IMAGE}|`]: [plain, good] } }).mutate[0]?.[1],
      "pass",
      "one verified payload carrying them is enough",
    );
  });

  test("a signature that is not base64 is named with Go's base64 error", () => {
    const garbled = { ...good, signature: "%%%" };
    const r = run(
      policy(entry([{ entries: [keys(key.publicPem)] }], { mutateDigest: false, verifyDigest: false })),
      appPod(),
      { ...signedTable, signatures: { [`${IMAGE}|`]: [garbled] } },
    );
    assert.deepEqual(r.mutate, [
      [
        "verify",
        "fail",
        `failed to verify image ${IMAGE}: .attestors[0].entries[0].keys: no matching signatures: illegal base64 data at input byte 0`,
      ],
    ]);
  });

  test("repository reads the signatures from another repository", () => {
    const asked: ImageDataRequest[] = [];
    const table: Table = { digests: signedTable.digests ?? {}, signatures: { [`${IMAGE}|ghcr.io/acme/sigs`]: [good] } };
    const engine = createEngine(ports(table, asked));
    const out = engine.mutate(
      policy(entry([{ entries: [keys(key.publicPem)] }], { repository: "ghcr.io/acme/sigs" })),
      { resource: appPod(), operation: "CREATE", namespaceLabels: {} },
    );
    assert.deepEqual(
      out.rules.map((r) => r.status),
      ["pass"],
    );
    assert.ok(asked.some((a) => a.form === "signatures" && a.repository === "ghcr.io/acme/sigs"));
  });

  test("the transparency log not ignored is an error saying how to fix it", () => {
    const r = run(policy(entry([{ entries: [{ keys: { publicKeys: key.publicPem } }] }])), appPod());
    assert.equal(r.mutate[0]?.[1], "error");
    assert.match(
      String(r.mutate[0]?.[2]),
      /\.attestors\[0\]\.entries\[0\]\.keys: Bylaw does not check the Rekor transparency log \(https:\/\/rekor\.sigstore\.dev\).*set keys\.rekor\.ignoreTlog: true/,
    );
    assert.equal(r.validate[0]?.[1], "error", "the validate side never passes what was not checked");
  });

  test("no registry access: an error naming --registry, on both sides", () => {
    const r = run(policy(entry([{ entries: [keys(key.publicPem)] }])), appPod(), {});
    assert.equal(
      r.mutate.every((x) => x[1] === "error"),
      true,
    );
    assert.match(String(r.mutate[0]?.[2]), /--registry/);
    assert.deepEqual(
      r.validate.map((x) => x[1]),
      ["fail"],
      "verifyDigest: the tag was not rewritten",
    );
  });

  test("an annotation the request brings never stands for a verification", () => {
    const forged = appPod(`ghcr.io/acme/app@${DIGEST}`);
    (forged["metadata"] as JsonObject)["annotations"] = {
      "kyverno.io/verify-images": JSON.stringify({ [`ghcr.io/acme/app@${DIGEST}`]: "pass" }),
    };
    const engine = createEngine(ports({ digests: { [`ghcr.io/acme/app@${DIGEST}`]: DIGEST } }));
    const v = engine.validate(policy(entry([{ entries: [keys(key.publicPem)] }])), {
      resource: forged,
      operation: "CREATE",
      namespaceLabels: {},
    });
    assert.deepEqual(
      v.rules.map((r) => [r.status, r.message]),
      [["fail", `unverified image ghcr.io/acme/app@${DIGEST}`]],
    );
  });

  test("fields Bylaw cannot run are errors naming them", () => {
    const cases: [JsonObject, RegExp][] = [
      [
        entry([{ entries: [{ certificates: { cert: LEAF_PEM } }] }]),
        /\.entries\[0\]\.certificates: Bylaw does not check the Rekor transparency log .*set certificates\.rekor\.ignoreTlog: true/,
      ],
      [
        entry([{ entries: [{ certificates: { cert: LEAF_PEM, certChain: ROOT_PEM, rekor: { ignoreTlog: true } } }] }]),
        /\.entries\[0\]\.certificates: Bylaw does not check certificate transparency .*set certificates\.ctlog\.ignoreSCT: true/,
      ],
      [
        entry([{ entries: [{ keys: { kms: "awskms:///x", rekor: { ignoreTlog: true } } }] }]),
        /\.entries\[0\]\.keys\.kms: /,
      ],
      [entry([{ entries: [{ keys: { secret: { name: "k", namespace: "n" } } }] }]), /\.entries\[0\]\.keys\.secret: /],
      [entry([{ entries: [keys(key.publicPem)] }], { type: "Notary" }), /verifyImages\[0\]\.type Notary/],
      [
        entry([{ entries: [keys(key.publicPem)] }], { attestations: [{ type: "https://slsa.dev/provenance/v0.2" }] }),
        /\.attestations\[0\]\.attestors: attestations with no attestors are verified keylessly/,
      ],
    ];
    for (const [e, message] of cases) {
      const r = run(policy({ ...e, mutateDigest: false, verifyDigest: false }), appPod());
      assert.equal(r.mutate[0]?.[1], "error", JSON.stringify(e));
      assert.match(String(r.mutate[0]?.[2]), message);
    }
  });

  test("certificates: the signature holds under the certificate's key, and the certificate chains to certChain's root", () => {
    const leafKey = { publicPem: LEAF_PEM, privateKey: createPrivateKey(LEAF_KEY_PEM) };
    const table: Table = {
      digests: signedTable.digests ?? {},
      signatures: { [`${IMAGE}|`]: [signPayload(leafKey, simpleSigning("ghcr.io/acme/app", DIGEST))] },
    };
    const cert = (extra: JsonObject): JsonObject => ({
      certificates: { cert: LEAF_PEM, rekor: { ignoreTlog: true }, ctlog: { ignoreSCT: true }, ...extra },
    });
    const p = (extra: JsonObject) =>
      policy(entry([{ entries: [cert(extra)] }], { mutateDigest: false, verifyDigest: false }));
    assert.deepEqual(run(p({ certChain: ROOT_PEM }), appPod(), table, LEAF_VALID_AT).mutate, [
      ["verify", "pass", `verified image signatures for ${IMAGE}`],
    ]);
    assert.deepEqual(
      run(p({}), appPod(), table, LEAF_VALID_AT).mutate.map((x) => x[1]),
      ["pass"],
      "without certChain the certificate's key alone",
    );
    assert.deepEqual(run(p({ certChain: OTHER_ROOT_PEM }), appPod(), table, LEAF_VALID_AT).mutate, [
      [
        "verify",
        "fail",
        `failed to verify image ${IMAGE}: .attestors[0].entries[0].certificates: failed to load validate certificate with chain: x509: certificate signed by unknown authority`,
      ],
    ]);
    const wrongSigner = run(p({ certChain: ROOT_PEM }), appPod(), signedTable, LEAF_VALID_AT).mutate[0];
    assert.match(String(wrongSigner?.[2]), /\.certificates: no matching signatures: invalid signature/);
  });

  test("on UPDATE an image the request did not change is not verified again", () => {
    const p = policy(entry([{ entries: [keys(otherKey.publicPem)] }], { mutateDigest: false, verifyDigest: false }));
    const engine = createEngine(ports(signedTable));
    const out = engine.mutate(p, {
      resource: appPod(),
      oldResource: appPod(),
      operation: "UPDATE",
      namespaceLabels: {},
    });
    assert.deepEqual(out.rules, []);
  });
});
