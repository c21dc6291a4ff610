/**
 * The podSecurity rules of one request share their pod's check outcomes (`CheckMemo`): each check
 * version runs once per request, and every rule still answers as if it ran alone, exclusions that
 * remove field errors included.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { evaluatePodSecurity } from "./evaluate-pod-security.js";
import type { CheckMemo } from "./evaluate.js";
import { container, restrictedPod, rule } from "../../../test/support/pod-security.js";

const SYS_ADMIN = { drop: ["ALL"], add: ["SYS_ADMIN"] };
const pod = restrictedPod({
  hostNetwork: true,
  containers: [
    container({ name: "tools", image: "tools/debug:1" }, { capabilities: SYS_ADMIN, privileged: true }),
    container({ name: "web", image: "nginx" }, { capabilities: SYS_ADMIN }),
  ],
});
const rules = [
  rule("restricted", "latest", [{ controlName: "Capabilities", images: ["tools/*"] }]),
  rule("baseline"),
  rule("restricted"),
  rule("baseline", "v1.24", [{ controlName: "Host Namespaces" }]),
];

test("rules sharing a request's check outcomes answer as each alone, in either order", () => {
  const alone = rules.map((ps) => evaluatePodSecurity(ps, pod));
  const errors = (i: number): number => (alone[i]?.checks ?? []).reduce((n, c) => n + c.errors.length, 0);
  assert.ok(alone.every((o) => !o.allowed));
  assert.ok(errors(0) < errors(2), "the exclusion removed field errors the same level without it keeps");
  for (const order of [rules, [...rules].reverse()]) {
    const checks: CheckMemo = new Map();
    const shared = order.map((ps) => evaluatePodSecurity(ps, pod, { checks }));
    assert.deepEqual(order === rules ? shared : shared.reverse(), alone);
  }
});

test("each check version runs once per request: a level whose checks ran adds none", () => {
  const checks: CheckMemo = new Map();
  evaluatePodSecurity(rule("restricted"), pod, { checks });
  const ran = checks.size;
  assert.ok(ran > 0);
  evaluatePodSecurity(rule("baseline"), pod, { checks });
  evaluatePodSecurity(rule("restricted"), pod, { checks });
  assert.equal(checks.size, ran, "the baseline checks are restricted's, at the same version");
});
