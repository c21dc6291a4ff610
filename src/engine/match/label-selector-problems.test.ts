/** Label selectors checked as apimachinery's ValidateLabelSelector checks them. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { labelSelectorProblems } from "./label-selector-problems.js";

const paths = (s: unknown): string[] => labelSelectorProblems(s as never, "sel").map((p) => `${p.path}: ${p.message}`);

test("valid selectors, and none at all, have no problems", () => {
  assert.deepEqual(paths(undefined), []);
  assert.deepEqual(paths({}), []);
  assert.deepEqual(
    paths({
      matchLabels: { "example.com/team": "a", tier: "" },
      matchExpressions: [
        { key: "x", operator: "In", values: ["1"] },
        { key: "y", operator: "DoesNotExist" },
      ],
    }),
    [],
  );
});

test("each requirement Kubernetes refuses is named by its field", () => {
  assert.deepEqual(paths({ matchExpressions: [{ key: "x", operator: "in", values: ["1"] }] }), [
    'sel.matchExpressions[0].operator: Invalid value: "in": not a valid selector operator',
  ]);
  assert.deepEqual(paths({ matchExpressions: [{ key: "x", operator: "NotIn", values: [] }] }), [
    "sel.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
  ]);
  assert.deepEqual(paths({ matchExpressions: [{ key: "x", operator: "Exists", values: ["1"] }] }), [
    "sel.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
  ]);
  assert.match(
    paths({ matchExpressions: [{ key: "-x", operator: "Exists" }] }).join(),
    /sel\.matchExpressions\[0\]\.key: label key "-x" is invalid/,
  );
  assert.match(
    paths({ matchLabels: { team: "a*" } }).join(),
    /sel\.matchLabels: label value "a\*" is invalid/,
    "Kyverno's wildcards are not Kubernetes'",
  );
  assert.deepEqual(paths("x"), ["sel: must be a label selector (matchLabels, matchExpressions)"]);
});
