/** `status.autogen` per policies.kyverno.io kind (autogen-status.ts): which kinds have it, and its shape. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { celAutogenStatus } from "./autogen-status.js";

const onPods = (extra: JsonObject): JsonObject => ({
  matchConstraints: {
    resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
  },
  ...extra,
});

describe("status.autogen of the policies.kyverno.io kinds", () => {
  test("an ImageValidatingPolicy is rewritten as a ValidatingPolicy is: every object.spec in its spec moves to the pod template", () => {
    const spec = onPods({
      images: [{ name: "containers", expression: "object.spec.containers.map(c, c.image)" }],
      autogen: { podControllers: { controllers: ["statefulsets"] } },
    });
    assert.deepEqual(celAutogenStatus("NamespacedImageValidatingPolicy", spec), {
      configs: {
        defaults: {
          targets: [{ group: "apps", version: "v1", resource: "statefulsets", kind: "StatefulSet" }],
          spec: {
            matchConstraints: {
              resourceRules: [
                { apiGroups: ["apps"], apiVersions: ["v1"], resources: ["statefulsets"], operations: ["CREATE"] },
              ],
            },
            images: [{ name: "containers", expression: "object.spec.template.spec.containers.map(c, c.image)" }],
            autogen: { podControllers: { controllers: ["statefulsets"] } },
          },
        },
      },
    });
  });

  test("{} when nothing is generated (not only Pods, no spec); undefined for the kinds whose CRD has no status.autogen", () => {
    assert.deepEqual(celAutogenStatus("ValidatingPolicy", { matchConstraints: { resourceRules: [] } }), {});
    assert.deepEqual(celAutogenStatus("MutatingPolicy", undefined), {});
    for (const kind of ["GeneratingPolicy", "NamespacedDeletingPolicy", "PolicyException", "constructor"])
      assert.equal(celAutogenStatus(kind, onPods({})), undefined, kind);
  });
});
