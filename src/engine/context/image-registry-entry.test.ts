/**
 * `imageRegistry` context entries through the ContextSources port: the reference after
 * substitution, Kyverno's context shape ("context" form), the entry's imageRegistryCredentials and
 * whose policy asks reach the port; `jmesPath` applies to the answer. A port that cannot read
 * registries leaves an error naming `--registry`; a "pending" fetch is an error too, never a value.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../api/json.js";
import { err, ok, type Result } from "../api/result.js";
import { createEngine } from "../engine.js";
import type { ContextSources, ImageDataRequest } from "../ports.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { pod } from "../../../test/support/builders.js";

function policy(entry: JsonObject, namespace?: string): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: namespace === undefined ? "ClusterPolicy" : "Policy",
    metadata: namespace === undefined ? { name: "p" } : { name: "p", namespace },
    spec: {
      validationFailureAction: "Enforce",
      rules: [
        {
          name: "r",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          context: [
            { name: "img", imageRegistry: { reference: "{{ request.object.spec.containers[0].image }}", ...entry } },
          ],
          validate: {
            message: "user {{ img }}",
            deny: { conditions: { any: [{ key: "{{ img }}", operator: "Equals", value: "root" }] } },
          },
        },
      ],
    },
  };
}

function run(
  doc: JsonObject,
  answer: (reference: string, request: ImageDataRequest | undefined) => Result<JsonValue>,
  canLoad = true,
) {
  const asked: [string, ImageDataRequest | undefined][] = [];
  const base = fakePorts();
  const context: ContextSources = {
    ...base.context,
    canLoad: (kind) => kind === "imageRegistry" && canLoad,
    imageData: (reference, request) => {
      asked.push([reference, request]);
      return answer(reference, request);
    },
  };
  const engine = createEngine({ ...base, context });
  const c = engine.compile(doc);
  if (!c.ok) throw new Error(c.problems.map((p) => p.message).join("; "));
  const [rule] = engine.validate(c.policy, {
    resource: pod({ name: "web", namespace: "team", containers: [{ name: "app", image: "ghcr.io/org/app:v1" }] }),
    operation: "CREATE",
    namespaceLabels: {},
  }).rules;
  return { rule, asked };
}

const data = (user: string): JsonObject => ({ image: "ghcr.io/org/app:v1", configData: { config: { User: user } } });

describe("imageRegistry context entries", () => {
  test("the port gets the substituted reference, the context form, the credentials and the caller; jmesPath picks from the answer", () => {
    const creds = { secrets: ["pull"], providers: ["default"] };
    const { rule, asked } = run(policy({ jmesPath: "configData.config.User", imageRegistryCredentials: creds }), () =>
      ok(data("root")),
    );
    assert.deepEqual(asked, [
      ["ghcr.io/org/app:v1", { form: "context", credentials: creds, caller: { policyNamespace: "" } }],
    ]);
    assert.equal(rule?.status, "fail");
    assert.equal(rule?.message, "user root");
    assert.equal(run(policy({ jmesPath: "configData.config.User" }), () => ok(data("1000"))).rule?.status, "pass");
  });

  test("a namespaced Policy's entry reaches the port with its namespace", () => {
    const { asked } = run(policy({ jmesPath: "configData.config.User" }, "team"), () => ok(data("1000")));
    assert.deepEqual(asked[0]?.[1]?.caller, { policyNamespace: "team" });
  });

  test("no registry access: an error naming --registry and the values file, not a pass", () => {
    const { rule, asked } = run(policy({ jmesPath: "configData.config.User" }), () => ok(data("1000")), false);
    assert.equal(asked.length, 0);
    assert.equal(rule?.status, "error");
    assert.match(
      rule?.message ?? "",
      /failed to load context entry img: imageRegistry context entries read an image registry, and this run has no registry access: run bylaw apply or bylaw test with --registry/,
    );
    assert.match(rule?.message ?? "", /give a value for "img" in a values file/);
  });

  test("a fetch not made yet (pending) and a failed fetch are rule errors with their reasons", () => {
    const pending = run(policy({}), () =>
      err("pending", "image ghcr.io/org/app:v1: not fetched from its registry yet"),
    );
    assert.equal(pending.rule?.status, "error");
    assert.match(pending.rule?.message ?? "", /not fetched from its registry yet/);
    const failed = run(policy({}), (ref) =>
      err(
        "context",
        `failed to fetch image descriptor: ${ref}, error: GET https://ghcr.io/v2/org/app/manifests/v1: unexpected status code 404: MANIFEST_UNKNOWN`,
      ),
    );
    assert.equal(failed.rule?.status, "error");
    // As kyverno apply --registry words it: the loader's error, naming no entry, where the deny key is resolved.
    assert.equal(
      failed.rule?.message,
      "failed to check deny conditions: failed to substitute variables in condition key: failed to resolve img at path : failed to fetch image descriptor: ghcr.io/org/app:v1, error: GET https://ghcr.io/v2/org/app/manifests/v1: unexpected status code 404: MANIFEST_UNKNOWN",
    );
  });
});
