import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parsePolicySet } from "./read-set.js";

const base = {
  apiVersion: "bylaw.dev/v1alpha1",
  kind: "PolicySet",
  metadata: { name: "pss-baseline" },
  description: "Baseline\n  controls.",
  policies: ["a.yaml", "../shared/", "/abs/p.yaml"],
};

describe("parsePolicySet", () => {
  test("entries resolve against the set's folder; the description is one line", () => {
    const read = parsePolicySet(base, "/pkg/policies/pss-baseline/set.yaml");
    assert.ok(read.ok);
    assert.equal(read.set.name, "pss-baseline");
    assert.equal(read.set.description, "Baseline controls.");
    assert.deepEqual(read.set.entries, ["/pkg/policies/pss-baseline/a.yaml", "/pkg/policies/shared", "/abs/p.yaml"]);
  });

  const bad: [string, object, RegExp][] = [
    ["wrong apiVersion", { ...base, apiVersion: "v1" }, /apiVersion must be bylaw\.dev\/v1alpha1 \(got "v1"\)/],
    ["wrong kind", { ...base, kind: "Set" }, /kind must be PolicySet/],
    ["no name", { ...base, metadata: {} }, /metadata\.name must be a lower-case name/],
    ["upper-case name", { ...base, metadata: { name: "PSS" } }, /metadata\.name/],
    ["no policies", { ...base, policies: [] }, /policies must list at least one/],
    ["a policy that is not a path", { ...base, policies: ["a.yaml", 3] }, /policies\[1\] must be a path/],
    ["description not a string", { ...base, description: ["x"] }, /description must be a string/],
  ];
  for (const [name, doc, message] of bad) {
    test(`rejects ${name}, naming the file`, () => {
      const read = parsePolicySet(doc as never, "/p/set.yaml");
      assert.equal(read.ok, false);
      if (!read.ok) assert.match(read.problem, new RegExp(`^/p/set\\.yaml: ${message.source}`));
    });
  }
});
