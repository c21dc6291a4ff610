/** Kyverno's exact denial text (Kyverno `pkg/webhooks/utils/block.go`). */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { CompiledPolicy, PolicyResponse, RuleResult } from "../../engine/index.js";
import { denialMessage } from "./denial-message.js";

const response = (name: string, rules: Partial<RuleResult>[]): PolicyResponse => ({
  policy: { name } as CompiledPolicy,
  resource: {},
  rules: rules.map((r) => ({ rule: "r", type: "Validation", status: "fail", message: "m", ...r })),
});

test("the text of Kyverno's block.go for one failing rule, byte for byte", () => {
  const msg = denialMessage({ kind: "Pod", namespace: "default", name: "nginx" }, [
    response("require-labels", [
      {
        rule: "check-for-labels",
        message: "validation error: label app is required. rule check-for-labels failed at path /metadata/labels/app/",
      },
    ]),
  ]);
  assert.equal(
    msg,
    "\n\nresource Pod/default/nginx was blocked due to the following policies \n\nrequire-labels:\n  check-for-labels: 'validation error: label app is required. rule check-for-labels failed at path /metadata/labels/app/'\n",
  );
});

test("cluster-scoped: Kind//name; policies and rules sorted; pass and skip left out; errors and Audit failures kept", () => {
  const msg = denialMessage({ kind: "Namespace", namespace: "", name: "team-a" }, [
    response("z-policy", [
      { rule: "b", message: "deny b" },
      { rule: "a", status: "pass", message: "ok" },
    ]),
    response("a-policy", [
      { rule: "s", status: "skip", message: "skipped" },
      { rule: "e", status: "error", message: "failed to evaluate preconditions: boom" },
      { rule: "w", status: "warn", message: "warned" },
    ]),
    response("only-passes", [{ rule: "p", status: "pass", message: "ok" }]),
  ]);
  assert.equal(
    msg,
    "\n\nresource Namespace//team-a was blocked due to the following policies \n\na-policy:\n  e: 'failed to evaluate preconditions: boom'\n  w: warned\nz-policy:\n  b: deny b\n",
  );
});
