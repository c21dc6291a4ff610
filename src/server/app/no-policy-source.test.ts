import { test } from "node:test";
import assert from "node:assert/strict";
import { cleanupAloneRefusal, loadsPolicySet } from "./no-policy-source.js";

const on = { enabled: true, namespaces: "all" } as const;
const off = { enabled: false } as const;

test("only admission, background and reports load the policy set", () => {
  assert.equal(loadsPolicySet(["cleanup"]), false);
  assert.equal(loadsPolicySet(["monitoring"]), false);
  assert.equal(loadsPolicySet(["cleanup", "reports"]), true);
  assert.equal(loadsPolicySet(["admission"]), true);
});

test("the cleanup component alone with PolicyExceptions on is refused, naming the flag and the way out", () => {
  const why = cleanupAloneRefusal({ components: ["cleanup"], folder: false, exceptions: on });
  assert.match(why ?? "", /^--enable-policy-exception: .*does not read PolicyExceptions.*--cleanup-controller/);
});

test("it starts with exceptions off, beside a component that loads the set, or on a policy folder", () => {
  assert.equal(cleanupAloneRefusal({ components: ["cleanup"], folder: false, exceptions: off }), undefined);
  assert.equal(cleanupAloneRefusal({ components: ["cleanup", "admission"], folder: false, exceptions: on }), undefined);
  assert.equal(cleanupAloneRefusal({ components: ["cleanup"], folder: true, exceptions: on }), undefined);
  assert.equal(cleanupAloneRefusal({ components: ["monitoring"], folder: false, exceptions: on }), undefined);
});
