/**
 * imageRegistry entries in admission (`serve --cluster`, docs/adr/0015): through the real handlers,
 * engine, review-calls loop and live image data port, against a registry the test serves on
 * loopback with a bearer challenge. An image reference is tenant input: the egress filter refuses a
 * loopback registry unless the operator allows it (`--egress-allow`), and then the pull secret's
 * credentials (read as Bylaw's ServiceAccount; faked here by a function) get the token.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { TestRegistry } from "../../../test/support/test-registry.js";
import { registryReviewDeps, reviewObject } from "../../../test/support/registry-review.js";
import type { AdmissionReviewJson } from "./types.js";
import { pod } from "../../../test/support/builders.js";

function policy(namespace?: string, secrets?: string[]): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: namespace === undefined ? "ClusterPolicy" : "Policy",
    metadata: namespace === undefined ? { name: "no-root-images" } : { name: "no-root-images", namespace },
    spec: {
      validationFailureAction: "Enforce",
      background: false,
      rules: [
        {
          name: "image-user",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          context: [
            {
              name: "img",
              imageRegistry: {
                reference: "{{ request.object.spec.containers[0].image }}",
                jmesPath: "configData.config.User",
                ...(secrets !== undefined ? { imageRegistryCredentials: { secrets } } : {}),
              },
            },
          ],
          validate: {
            message: "the image runs as {{ img }}",
            deny: { conditions: { any: [{ key: "{{ img }}", operator: "Equals", value: "root" }] } },
          },
        },
      ],
    },
  };
}

/** A Pod `p` in namespace team running `image`. */
const teamPod = (image: string): JsonObject =>
  pod({ name: "p", namespace: "team", containers: [{ name: "c", image }] });

describe("imageRegistry in admission, through the egress filter", () => {
  const registry = new TestRegistry({ users: { bylaw: "pull-pass" } });
  const secretReads: string[] = [];
  before(async () => {
    await registry.start();
    registry.add("team/root", "1", { config: { config: { User: "root" } } });
    registry.add("team/safe", "1", { config: { config: { User: "1000" } } });
  });
  after(() => registry.stop());

  function setUp(policies: JsonObject[], allow: string[]) {
    const auth = Buffer.from("bylaw:pull-pass").toString("base64");
    const secret = {
      data: {
        ".dockerconfigjson": Buffer.from(JSON.stringify({ auths: { [registry.host]: { auth } } })).toString("base64"),
      },
    };
    return registryReviewDeps({
      policies,
      allow,
      readSecret: async (path) => (secretReads.push(path), secret),
      pullSecrets: ["registry-pull"],
    });
  }

  const review = (deps: ReturnType<typeof setUp>, image: string): Promise<AdmissionReviewJson> =>
    reviewObject(deps, teamPod(image));

  it("a registry on a loopback address is refused by default: a rule error under failurePolicy Fail, and no connection", async () => {
    const before = registry.seen.length;
    const answer = await review(setUp([policy()], []), `${registry.host}/team/safe:1`);
    assert.equal(answer.response?.allowed, false);
    assert.match(
      answer.response?.status?.message ?? "",
      /failed to fetch image descriptor: 127\.0\.0\.1:\d+\/team\/safe:1, error: registry URL http:\/\/127\.0\.0\.1:\d+\/v2\/team\/safe\/manifests\/1: the address is loopback/,
    );
    assert.equal(registry.seen.length, before, "the registry saw no request");
  });

  it("with --egress-allow 127.0.0.0/8 the image is read with the pull secret's credentials and the rule decides on it", async () => {
    const deps = setUp([policy()], ["127.0.0.0/8"]);
    const root = await review(deps, `${registry.host}/team/root:1`);
    assert.equal(root.response?.allowed, false);
    assert.match(root.response?.status?.message ?? "", /the image runs as root/);
    const safe = await review(deps, `${registry.host}/team/safe:1`);
    assert.equal(safe.response?.allowed, true);
    assert.ok(secretReads.includes("/api/v1/namespaces/bylaw/secrets/registry-pull"));
    assert.ok(registry.seen.some((s) => s.path === "/token" && (s.authorization ?? "").startsWith("Basic ")));
  });

  it("CEL image.GetMetadata in a ValidatingPolicy reads the registry the same way", async () => {
    const vpol: JsonObject = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "cel-no-root" },
      spec: {
        validationActions: ["Deny"],
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
        },
        validations: [
          {
            expression: "image.GetMetadata(object.spec.containers[0].image).config.config.User != 'root'",
            message: "the image runs as root",
          },
        ],
      },
    };
    const deps = setUp([vpol], ["127.0.0.0/8"]);
    const root = await review(deps, `${registry.host}/team/root:1`);
    assert.equal(root.response?.allowed, false);
    assert.match(root.response?.status?.message ?? "", /Policy cel-no-root failed: the image runs as root/);
    assert.equal((await review(deps, `${registry.host}/team/safe:1`)).response?.allowed, true);
  });

  it("a namespaced Policy may not borrow a secret of Bylaw's namespace: a rule error, and the secret is not read", async () => {
    const reads = secretReads.length;
    const answer = await review(
      setUp([policy("team", ["registry-admin"])], ["127.0.0.0/8"]),
      `${registry.host}/team/safe:1`,
    );
    assert.equal(answer.response?.allowed, false);
    assert.match(
      answer.response?.status?.message ?? "",
      /a namespaced Policy \(namespace "team"\) may use only pull secrets of its own namespace/,
    );
    assert.equal(secretReads.length, reads);
  });
});
