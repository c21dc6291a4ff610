/**
 * Kubernetes' typed conversion of an ApplyConfiguration and its object. Each expected text was
 * checked beside kyverno apply v1.19.0 with a MutatingPolicy making the same patch on the same object.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { applyConfigurationRefusal, builtinTypedKinds } from "./index.js";

const pod = (spec: JsonObject, metadata: JsonObject = { name: "p" }): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata,
  spec,
});
const containers = [{ name: "c", image: "nginx", ports: [{ containerPort: 80 }] }];
const refusal = (object: JsonObject, patch: JsonObject) => applyConfigurationRefusal(object, patch, builtinTypedKinds);

test("a patch and an object that convert: no refusal", () => {
  assert.equal(refusal(pod({ containers }), { metadata: { labels: { x: "y" } } }), undefined);
  assert.equal(
    refusal(pod({ containers }), { spec: { containers: [{ name: "c", resources: { limits: { cpu: "1" } } }] } }),
    undefined,
  );
});

test("the object: an undeclared field, a scalar of the wrong type, several errors under 'errors:'", () => {
  const patch = { metadata: { labels: { x: "y" } } };
  assert.equal(
    refusal(pod({ securityContext: { allowPrivilegeEscalation: false }, containers }), patch),
    "failed to convert original object to typed object: .spec.securityContext.allowPrivilegeEscalation: field not declared in schema",
  );
  assert.equal(
    refusal(
      pod({
        containers: [
          { name: "c", image: "i", ports: [{ containerPort: 80, bogus: 1 }], securityContext: { runAsUser: "1000" } },
        ],
      }),
      patch,
    ),
    [
      "failed to convert original object to typed object: errors:",
      '  .spec.containers[name="c"].ports[containerPort=80,protocol="TCP"].bogus: field not declared in schema',
      '  .spec.containers[name="c"].securityContext.runAsUser: expected numeric (int or float), got string',
    ].join("\n"),
  );
  // Repeated keys are allowed in the object; a boolean that is not one is named as Go prints it.
  assert.equal(
    refusal(
      pod({
        containers: [
          { name: "c", image: "a" },
          { name: "c", image: "b", tty: "yes" },
        ],
      }),
      patch,
    ),
    'failed to convert original object to typed object: .spec.containers[name="c"].tty: expected boolean, got &{yes}',
  );
});

test("the patch: undeclared fields, wrong scalars and repeated keys come first", () => {
  const object = pod({ containers });
  assert.equal(
    refusal(object, { spec: { bogus: 1 } }),
    "failed to convert patch object to typed object: .spec.bogus: field not declared in schema",
  );
  assert.equal(
    refusal(object, { spec: { priority: "high" } }),
    "failed to convert patch object to typed object: .spec.priority: expected numeric (int or float), got string",
  );
  assert.equal(
    refusal(object, { spec: { containers: [{ name: "c", image: 5 }] } }),
    'failed to convert patch object to typed object: .spec.containers[name="c"].image: expected string, got &value.valueUnstructured{Value:5}',
  );
  assert.equal(
    refusal(object, { spec: { containers: [{ name: "c" }, { name: "c" }] } }),
    'failed to convert patch object to typed object: .spec.containers: duplicate entries for key [name="c"]',
  );
});

test("the patch may set no atomic list or map, listed in the order it sets them", () => {
  assert.equal(
    refusal(pod({ containers }), {
      spec: { tolerations: [{ key: "a", operator: "Exists" }], containers: [{ name: "c", args: ["x"] }] },
    }),
    "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.tolerations, .spec.containers[0].args",
  );
  assert.equal(
    refusal(pod({ containers }), { spec: { nodeSelector: { a: "b" } } }),
    "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.nodeSelector",
  );
  const deployment: JsonObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d" },
    spec: { selector: { matchLabels: { app: "a" } }, template: { spec: { containers } } },
  };
  assert.equal(
    refusal(deployment, { spec: { selector: { matchLabels: { a: "b" } } } }),
    "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector",
  );
});

test("a kind the built-in types do not know (a custom resource) is not converted", () => {
  const widget = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { anything: [1] } };
  assert.equal(refusal(widget, { spec: { more: true } }), undefined);
});
