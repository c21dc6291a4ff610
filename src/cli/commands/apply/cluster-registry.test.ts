/**
 * `bylaw apply --cluster --registry`: the session reads the cluster and image registries in the same
 * rounds, so an imageRegistry entry may name an image a configMap entry read from the cluster, and a
 * CEL image.GetMetadata works beside live objects. The cluster here is a fake of the client's one
 * read method (getJson); test/cluster/apply-cluster.cluster-test.ts runs the command against a real
 * API server and this test's registry.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { compileDocuments } from "../../../library/compile-documents.js";
import { existingResources } from "../../../library/existing-resources.js";
import { processResource } from "../../../library/process-resource.js";
import { parseDocuments } from "../../../platform/yaml/index.js";
import { Keychain, RegistryAccess, RegistryClient, httpTransport } from "../../../platform/registry/index.js";
import type { KubeClient } from "../../../kube/kube-client.js";
import type { Resource } from "../../../engine/index.js";
import { TestRegistry } from "../../../../test/support/test-registry.js";
import { CEL_NO_ROOT_POLICY } from "../../../../test/support/image-policies.js";
import { ecdsaKey, signPayload, simpleSigning } from "../../../../test/support/cosign-signing.js";
import { buildRequest } from "../../../platform/offline-values/build-request.js";
import { EMPTY_VALUES } from "../../../platform/offline-values/values-file.js";
import { ClusterSession } from "./cluster-input.js";

const registry = new TestRegistry();

const policy = (host: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: approved-base}
spec:
  validationFailureAction: Enforce
  rules:
    - name: base-user
      match: {any: [{resources: {kinds: [Pod]}}]}
      context:
        - name: settings
          configMap: {name: images, namespace: default}
        - name: base
          imageRegistry:
            reference: "${host}/{{ settings.data.base }}"
      validate:
        message: "base {{ base.resolvedImage }} runs as {{ base.configData.config.User }}"
        deny: {conditions: {any: [{key: "{{ base.configData.config.User }}", operator: Equals, value: root}]}}
---
${CEL_NO_ROOT_POLICY}`;

/** A client whose only cluster is one ConfigMap; every other path is a 404 as the API server answers it. */
function fakeClient(base: string, reads: string[]): KubeClient {
  const client = {
    getJson: (path: string): Promise<unknown> => {
      reads.push(path);
      if (path === "/api/v1/namespaces/default/configmaps/images")
        return Promise.resolve({ metadata: { name: "images", namespace: "default" }, data: { base } });
      return Promise.reject(new Error(`GET ${path}: 404 not found`));
    },
    close: () => undefined,
  };
  return client as unknown as KubeClient;
}

async function check(
  base: string,
  image: string,
  policyText = policy(registry.host),
): Promise<{ results: string[]; reads: string[] }> {
  const reads: string[] = [];
  const access = new RegistryAccess(new RegistryClient({ transport: httpTransport() }), Keychain.empty);
  const session = new ClusterSession(fakeClient(base, reads), "fake", "https://fake", undefined, access);
  const docs = parseDocuments(policyText, "p.yaml");
  const policies = compileDocuments(docs, session.engine);
  assert.deepEqual([policies.errors, policies.fatal], [[], []]);
  const pod: Resource = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "shop" },
    spec: { containers: [{ name: "c", image }] },
  };
  const done = await session.evaluate(() =>
    processResource(
      session.engine,
      policies.compiled,
      pod,
      (r, p) => buildRequest(r, p, EMPTY_VALUES, undefined),
      existingResources([]),
    ),
  );
  const results = done.responses
    .flatMap((r) => r.rules.map((x) => `${r.policy.name} ${x.status}: ${x.message}`))
    .sort();
  return { results, reads };
}

describe("apply --cluster with --registry: cluster reads and image fetches in one session", () => {
  let rootDigest = "";
  before(async () => {
    await registry.start();
    rootDigest = registry.add("team/root", "1", { config: { config: { User: "root" } } });
    registry.add("team/safe", "1", { config: { config: { User: "1000" } } });
  });
  after(() => registry.stop());

  test("an imageRegistry entry naming an image a live ConfigMap gives is read from the registry; root fails", async () => {
    const { results, reads } = await check("team/root:1", `${registry.host}/team/safe:1`);
    assert.deepEqual(results, [
      `approved-base fail: base ${registry.host}/team/root@${rootDigest} runs as root`,
      "cel-no-root pass: success",
    ]);
    assert.deepEqual(reads, ["/api/v1/namespaces/default/configmaps/images"], "the ConfigMap is read once");
  });

  test("a safe base passes, and CEL image.GetMetadata fails the Pod whose own image runs as root", async () => {
    const { results } = await check("team/safe:1", `${registry.host}/team/root:1`);
    assert.deepEqual(results, [
      "approved-base pass: validation rule 'base-user' passed.",
      "cel-no-root fail: the image runs as root",
    ]);
  });

  test("an image the registry does not have is a rule error naming it, never a pass", async () => {
    const { results } = await check("team/missing:1", `${registry.host}/team/safe:1`);
    const entry = results.find((r) => r.startsWith("approved-base"));
    assert.match(
      entry ?? "",
      new RegExp(`^approved-base error: .*${registry.host.replace(/\./g, "\\.")}/team/missing:1`),
    );
  });

  test("verifyImages reads signatures from the entry's repository, not only the image's own", async () => {
    const key = ecdsaKey();
    const digest = registry.add("team/signed", "1", { config: { config: { User: "1000" } } });
    registry.sign(
      "team/signed",
      digest,
      [signPayload(key, simpleSigning(`${registry.host}/team/signed`, digest))],
      "team/signatures",
    );
    const verify = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: signed-images}
spec:
  rules:
    - name: signed
      match: {any: [{resources: {kinds: [Pod]}}]}
      verifyImages:
        - imageReferences: ["${registry.host}/team/*"]
          mutateDigest: false
          verifyDigest: false
          repository: ${registry.host}/team/signatures
          attestors:
            - entries:
                - keys:
                    rekor: {ignoreTlog: true}
                    publicKeys: |-
${key.publicPem
  .trim()
  .split("\n")
  .map((l) => `                      ${l}`)
  .join("\n")}
`;
    const { results } = await check("team/safe:1", `${registry.host}/team/signed:1`, verify);
    assert.ok(
      results.some((r) => r.startsWith("signed-images pass")),
      results.join("\n"),
    );
    assert.ok(!results.some((r) => / (fail|error):/.test(r)), results.join("\n"));
  });
});
