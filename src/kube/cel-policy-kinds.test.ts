import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { CEL_POLICY_KINDS, celKindInfo } from "./cel-policy-kinds.js";

const crds = join(resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", ".."), "deploy", "crds");

interface Crd {
  readonly spec: {
    readonly group: string;
    readonly scope: string;
    readonly names: { readonly kind: string; readonly plural: string };
    readonly versions: readonly { readonly name: string; readonly storage?: boolean }[];
  };
}

function celCrds(): Crd[] {
  return readdirSync(crds)
    .filter((f) => f.startsWith("policies.kyverno.io_") && f !== "policies.kyverno.io_policyexceptions.yaml")
    .map((f) => parse(readFileSync(join(crds, f), "utf8")) as Crd);
}

test("every policies.kyverno.io policy CRD is watched at its plural, scope and storage version (from the engine's registry)", () => {
  const all = celCrds();
  assert.equal(all.length, 10);
  for (const crd of all) {
    const info = celKindInfo(crd.spec.names.kind);
    assert.ok(info !== undefined, crd.spec.names.kind);
    assert.equal(info.gvr.resource, crd.spec.names.plural, crd.spec.names.kind);
    assert.equal(info.gvr.group, crd.spec.group);
    assert.equal(info.namespaced, crd.spec.scope === "Namespaced", crd.spec.names.kind);
    assert.equal(info.gvr.version, crd.spec.versions.find((v) => v.storage === true)?.name, crd.spec.names.kind);
  }
  assert.equal(CEL_POLICY_KINDS.length, all.length);
  assert.equal(celKindInfo("PolicyException"), undefined);
  assert.equal(celKindInfo("ClusterPolicy"), undefined);
});

test("what the server does with each kind follows its descriptor; only the served kinds must have listed", () => {
  const handling = Object.fromEntries(CEL_POLICY_KINDS.map((k) => [k.kind, [k.handling, k.required]]));
  assert.deepEqual(handling, {
    ValidatingPolicy: ["evaluated", true],
    NamespacedValidatingPolicy: ["evaluated", true],
    MutatingPolicy: ["evaluated", true],
    NamespacedMutatingPolicy: ["evaluated", true],
    ImageValidatingPolicy: ["evaluated", true],
    NamespacedImageValidatingPolicy: ["evaluated", true],
    GeneratingPolicy: ["generate", false],
    NamespacedGeneratingPolicy: ["generate", false],
    DeletingPolicy: ["cleanup", false],
    NamespacedDeletingPolicy: ["cleanup", false],
  });
  // The server compiles them in this order (the cluster's own first, in the registry's order).
  assert.deepEqual(
    CEL_POLICY_KINDS.filter((k) => !k.namespaced).map((k) => k.kind),
    ["ValidatingPolicy", "MutatingPolicy", "ImageValidatingPolicy", "GeneratingPolicy", "DeletingPolicy"],
  );
});
