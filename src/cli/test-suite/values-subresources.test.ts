/** A Values file's `subresources` (values-subresources.ts) and `bylaw test` on test/fixtures/subresources. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { offlineEngine } from "../offline/offline-engine.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { runSuite } from "./run-suite.js";
import { parseValues } from "../../platform/offline-values/values-file.js";
import { subresourceRequestOf } from "../../platform/offline-values/values-subresources.js";

/** The fixture folder, found above this file (works from src and dist). */
function fixtureDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "test", "fixtures", "subresources");
    if (existsSync(join(candidate, "kyverno-test.yaml"))) return candidate;
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find test/fixtures/subresources above the test");
    dir = up;
  }
}

const SCALE_ENTRY = {
  subresource: { name: "deployments/scale", kind: "Scale", group: "autoscaling", version: "v1" },
  parentResource: { name: "deployments", kind: "Deployment", group: "apps", version: "v1" },
};

describe("values subresources", () => {
  test("an entry maps a resource of the subresource's kind to its parent's kind and subresource", () => {
    const parsed = parseValues({ subresources: [SCALE_ENTRY] });
    assert.deepEqual(parsed.errors, []);
    const scale = { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "d" } };
    assert.deepEqual(subresourceRequestOf(parsed.values.subresources, scale), {
      matchKind: { group: "apps", version: "v1", kind: "Deployment" },
      subresource: "scale",
    });
    assert.equal(
      subresourceRequestOf(parsed.values.subresources, { ...scale, apiVersion: "autoscaling/v2" }),
      undefined,
    );
    assert.equal(subresourceRequestOf(undefined, scale), undefined);
  });

  test("a malformed entry is an error naming it", () => {
    const bad = parseValues({
      subresources: [
        { ...SCALE_ENTRY, subresource: { ...SCALE_ENTRY.subresource, name: "scale" } },
        { subresource: {} },
      ],
    });
    assert.match(bad.errors[0] ?? "", /subresources\[0\]\.subresource\.name: "scale" is not <resource>\/<subresource>/);
    assert.match(bad.errors[1] ?? "", /subresources\[1\]\.subresource\.name/);
    assert.match(parseValues({ subresources: "x" }).errors[0] ?? "", /subresources: must be a list/);
  });

  test("bylaw test: resources of a subresource's kind are checked as requests on the parent's subresource", async () => {
    const result = await runSuite(join(fixtureDir(), "kyverno-test.yaml"), offlineEngine);
    assert.equal(result.error, undefined);
    assert.deepEqual(
      result.results.map((r) => [r.rule, r.resource, r.actual, r.ok]),
      [
        ["deployment-scale", "big", "fail", true],
        ["deployment-scale", "small", "pass", true],
        ["any-scale", "big", "pass", true],
        ["any-scale", "small", "pass", true],
        ["no-eviction", "web", "fail", true],
      ],
    );
    assert.deepEqual(
      result.warnings.filter((w) => /not found for parent resource/.test(w)),
      [],
    );
  });

  test("without the values entry the rules match nothing (Excluded, as in Kyverno's CLI), and a warning names each unmapped subresource", async () => {
    const fixture = fixtureDir();
    const read = (f: string): string => readFileSync(join(fixture, f), "utf8");
    const dir = tempTree({
      "policy.yaml": read("policy.yaml"),
      "resources.yaml": read("resources.yaml"),
      "kyverno-test.yaml": read("kyverno-test.yaml").replace("variables: values.yaml\n", ""),
    });
    const result = await runSuite(join(dir, "kyverno-test.yaml"), offlineEngine);
    const rows = result.results.filter((r) => r.rule !== "any-scale");
    assert.deepEqual(
      rows.map((r) => [r.rule, r.resource, r.reason]),
      [
        ["deployment-scale", "big", "Excluded"],
        ["deployment-scale", "small", "Excluded"],
        ["no-eviction", "web", "Excluded"],
      ],
    );
    assert.deepEqual(
      result.warnings.filter((w) => /not found for parent resource/.test(w)).map((w) => w.split(":")[0]),
      ["policy scale-bounds rule deployment-scale", "policy scale-bounds rule no-eviction"],
    );
  });

  test("a PolicyException whose match names Deployment/scale excuses a Scale request", async () => {
    const fixture = fixtureDir();
    const read = (f: string): string => readFileSync(join(fixture, f), "utf8");
    const exception = `apiVersion: kyverno.io/v2
kind: PolicyException
metadata: {name: big-scale, namespace: default}
spec:
  exceptions: [{policyName: scale-bounds, ruleNames: [deployment-scale]}]
  match: {any: [{resources: {kinds: [Deployment/scale], names: [big]}}]}
`;
    const dir = tempTree({
      "policy.yaml": read("policy.yaml"),
      "resources.yaml": read("resources.yaml"),
      "values.yaml": read("values.yaml"),
      "exceptions.yaml": exception,
      "kyverno-test.yaml": read("kyverno-test.yaml")
        .replace("variables: values.yaml\n", "variables: values.yaml\nexceptions: [exceptions.yaml]\n")
        .replace(
          "resources: [big]\n    kind: Scale\n    result: fail",
          "resources: [big]\n    kind: Scale\n    result: skip",
        ),
    });
    const result = await runSuite(join(dir, "kyverno-test.yaml"), offlineEngine);
    assert.equal(result.error, undefined);
    assert.deepEqual(
      result.results.filter((r) => r.rule === "deployment-scale").map((r) => [r.resource, r.actual, r.ok]),
      [
        ["big", "skip", true],
        ["small", "pass", true],
      ],
    );
  });
});
