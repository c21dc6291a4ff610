/**
 * deploy/crds: Kyverno v1.19.0's CRDs, unchanged, with the wgpolicyk8s.io report CRDs, so that
 * existing Kyverno objects and `kubectl get cpol,pol,polex` work. Read as text (7 MB of YAML):
 * the cluster test applies them to a real API server.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parse } from "yaml";
import { repoRoot } from "./render.js";

const root = repoRoot();
const dir = join(root, "deploy", "crds");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")
  .sort();
const reference = join(root, "..", "shared", "reference", "kyverno-v1.19.0", "config", "crds");

/** metadata.name, spec.group and spec.names.shortNames of a CRD file, read from its text. */
function crd(file: string): { name: string; group: string; shortNames: string[] } {
  const text = readFileSync(join(dir, file), "utf8");
  const name = /^metadata:\n(?:\s{2}.*\n)*?\s{2}name: (\S+)$/m.exec(text)?.[1] ?? "";
  const group = /^\s{2}group: (\S+)$/m.exec(text)?.[1] ?? "";
  const shortNames = [...(/^\s{4}shortNames:\n((?:\s{4}- \S+\n)+)/m.exec(text)?.[1]?.matchAll(/- (\S+)/g) ?? [])].map(
    (m) => m[1] ?? "",
  );
  assert.match(text, /^kind: CustomResourceDefinition$/m, file);
  return { name, group, shortNames };
}

describe("deploy/crds", () => {
  test("the kustomization lists every CRD file, and nothing else", () => {
    const kustomization = parse(readFileSync(join(dir, "kustomization.yaml"), "utf8")) as {
      resources?: string[];
      labels?: unknown;
      patches?: unknown;
    };
    assert.deepEqual([...(kustomization.resources ?? [])].sort(), files);
    assert.equal(kustomization.labels, undefined, "the CRDs are applied as Kyverno ships them");
    assert.equal(kustomization.patches, undefined);
  });

  test("Kyverno's groups and the wgpolicyk8s.io reports, with Kyverno's short names", () => {
    const crds = files.map(crd);
    const groups = [...new Set(crds.map((c) => c.group))].sort();
    assert.deepEqual(groups, ["kyverno.io", "policies.kyverno.io", "reports.kyverno.io", "wgpolicyk8s.io"]);
    const short = (name: string): string[] => crds.find((c) => c.name === name)?.shortNames ?? [];
    assert.ok(short("clusterpolicies.kyverno.io").includes("cpol"));
    assert.ok(short("policies.kyverno.io").includes("pol"));
    assert.ok(short("policyexceptions.kyverno.io").includes("polex"));
    assert.ok(short("policyreports.wgpolicyk8s.io").includes("polr"));
    assert.ok(short("clusterpolicyreports.wgpolicyk8s.io").includes("cpolr"));
    assert.equal(crds.length, 22);
  });

  test(
    "each file is the reference copy of Kyverno v1.19.0, byte for byte",
    { skip: existsSync(reference) ? false : `${reference} is not beside the checkout` },
    () => {
      const upstream = readdirSync(reference).flatMap((sub) =>
        readdirSync(join(reference, sub)).map((f) => join(reference, sub, f)),
      );
      assert.deepEqual(upstream.map((p) => p.slice(p.lastIndexOf("/") + 1)).sort(), files);
      for (const p of upstream)
        assert.equal(readFileSync(join(dir, p.slice(p.lastIndexOf("/") + 1)), "utf8"), readFileSync(p, "utf8"), p);
    },
  );
});
