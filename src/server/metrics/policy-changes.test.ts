/** Which snapshot moves count as created / updated / deleted (Kyverno's policy metrics controller). */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { diffPolicies } from "./policy-changes.js";
import { policyLabels } from "./policy-labels.js";
import { compiled, validatePolicy } from "../../../test/support/metrics-policies.js";

const cp = (name: string, spec: JsonObject = {}, ns?: string) =>
  compiled(validatePolicy(name, spec, ["ConfigMap"], ns));
const summary = (prev: ReturnType<typeof cp>[], next: ReturnType<typeof cp>[]) =>
  diffPolicies(prev, next).map(
    (c) =>
      `${c.change}:${policyLabels(c.policy).name}:${policyLabels(c.policy).validationMode}:${policyLabels(c.policy).background}`,
  );

const cases: { name: string; prev: ReturnType<typeof cp>[]; next: ReturnType<typeof cp>[]; want: string[] }[] = [
  {
    name: "first load: every policy is created",
    prev: [],
    next: [cp("a"), cp("b")],
    want: ["created:a:audit:true", "created:b:audit:true"],
  },
  { name: "an identical reload counts nothing", prev: [cp("a")], next: [cp("a")], want: [] },
  {
    name: "a metadata-only change (labels, annotations) is not an update",
    prev: [cp("a")],
    next: [compiled({ ...validatePolicy("a", {}, ["ConfigMap"]), metadata: { name: "a", labels: { team: "x" } } })],
    want: [],
  },
  {
    name: "a spec change is one update under the old labels",
    prev: [cp("a", { admission: true })],
    next: [cp("a", { admission: false })],
    want: ["updated:a:audit:true"],
  },
  {
    name: "a validation mode change is counted under the old and the new labels",
    prev: [cp("a")],
    next: [cp("a", { validationFailureAction: "Enforce" })],
    want: ["updated:a:audit:true", "updated:a:enforce:true"],
  },
  {
    name: "a background change is counted under the old and the new labels",
    prev: [cp("a")],
    next: [cp("a", { background: false })],
    want: ["updated:a:audit:true", "updated:a:audit:false"],
  },
  {
    name: "a policy that is gone is deleted",
    prev: [cp("a"), cp("b")],
    next: [cp("b")],
    want: ["deleted:a:audit:true"],
  },
  {
    name: "a Policy and a ClusterPolicy with one name are different policies",
    prev: [cp("a")],
    next: [cp("a", {}, "team")],
    want: ["created:a:audit:true", "deleted:a:audit:true"],
  },
];

for (const c of cases) test(c.name, () => assert.deepEqual(summary(c.prev, c.next), c.want));
