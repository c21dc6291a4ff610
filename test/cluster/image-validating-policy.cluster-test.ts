/**
 * ImageValidatingPolicy in the webhook (issue 34 §3), end to end against a real API server with
 * kubectl, and an OCI registry the test serves on loopback (Bylaw may reach it: --egress-allow):
 * - a Pod whose image the registry serves unsigned is denied with Kyverno's message
 *   (`Policy <name> failed: <the validation's message>`);
 * - the signed one is admitted, its tag pinned to the digest by the mutating webhook (mutateDigest);
 * - a policies.kyverno.io PolicyException naming the policy lets the unsigned one in.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";
import { TestRegistry } from "../support/test-registry.js";
import { ecdsaKey, signPayload, simpleSigning } from "../support/cosign-signing.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
const registry = new TestRegistry();
const key = ecdsaKey();
const digests: Record<string, string> = {};

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);

const policy = (): string =>
  JSON.stringify({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ImageValidatingPolicy",
    metadata: { name: "signed-images" },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
      },
      matchImageReferences: [{ glob: `${registry.host}/team/*` }],
      attestors: [{ name: "cosign", cosign: { key: { data: key.publicPem }, ctlog: { insecureIgnoreTlog: true } } }],
      validations: [
        {
          expression: "images.containers.map(image, verifyImageSignatures(image, [attestors.cosign])).all(e, e > 0)",
          message: "failed the image Signature verification",
        },
      ],
    },
  });

const pod = (name: string, image: string): string =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: { containers: [{ name: "app", image }] },
  });

const DENIED =
  /admission webhook "[^"]+" denied the request: Policy signed-images failed: failed the image Signature verification/;

describe("ImageValidatingPolicy in the webhook", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    await registry.start();
    for (const name of ["signed", "unsigned"]) {
      const digest = registry.add(`team/${name}`, "1", { config: {} });
      digests[name] = digest;
      if (name === "signed")
        registry.sign(`team/${name}`, digest, [
          signPayload(key, simpleSigning(`${registry.host}/team/${name}`, digest)),
        ]);
    }
    cluster = await startCluster(buildTimeoutMs, undefined, {
      withBylaw: true,
      bylawArgs: "--egress-allow 127.0.0.0/8 --enable-policy-exception --exception-namespace default",
    });
    await ok(["apply", "-f", "-"], policy());
    // Served once the webhook denies the unsigned image (the configuration is registered a little later).
    await eventually("the ImageValidatingPolicy served", 90_000, async () => {
      const r = await current().kubectl(
        ["create", "--dry-run=server", "-f", "-"],
        pod("probe", `${registry.host}/team/unsigned:1`),
      );
      return r.code !== 0 && DENIED.test(r.stderr) ? true : undefined;
    });
  });

  after(async () => {
    await tearDown(cluster);
    await registry.stop();
  });

  test("a Pod whose image the registry serves unsigned is denied with Kyverno's message", async () => {
    const r = await current().kubectl(["create", "-f", "-"], pod("unsigned", `${registry.host}/team/unsigned:1`));
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, DENIED);
  });

  test("the signed one is admitted, its tag pinned to its digest", async () => {
    await ok(["create", "-f", "-"], pod("signed", `${registry.host}/team/signed:1`));
    const image = await ok(["get", "pod", "signed", "-n", "default", "-o", "jsonpath={.spec.containers[0].image}"]);
    assert.equal(image, `${registry.host}/team/signed:1@${digests["signed"]}`);
  });

  test("a policies.kyverno.io PolicyException naming the policy lets the unsigned image in", async () => {
    await ok(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "policies.kyverno.io/v1",
        kind: "PolicyException",
        metadata: { name: "allow-excepted", namespace: "default" },
        spec: {
          policyRefs: [{ name: "signed-images", kind: "ImageValidatingPolicy" }],
          matchConditions: [{ name: "excepted", expression: "object.metadata.name == 'excepted'" }],
        },
      }),
    );
    await eventually("the PolicyException applied", 60_000, async () => {
      const r = await current().kubectl(["create", "-f", "-"], pod("excepted", `${registry.host}/team/unsigned:1`));
      return r.code === 0 ? true : undefined;
    });
    const r = await current().kubectl(["create", "-f", "-"], pod("still-denied", `${registry.host}/team/unsigned:1`));
    assert.match(r.stderr, DENIED);
  });
});
