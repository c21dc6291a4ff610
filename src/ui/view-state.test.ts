import { test } from "node:test";
import assert from "node:assert/strict";
import { rowsOfReport } from "./report-rows.js";
import { formatFragment, parseFragment, visibleRows, type ViewState } from "./view-state.js";

const NONE = { status: "", namespace: "", severity: "", q: "" };

test("each page and its filters survive a trip through the URL, names with markup and slashes included", () => {
  const states: ViewState[] = [
    { route: { page: "overview" }, filters: NONE },
    { route: { page: "overview" }, filters: { status: "fail", namespace: "shop", severity: "high", q: "a b&c" } },
    { route: { page: "policy", policy: "<script>x</script>/../a?b#c" }, filters: { ...NONE, status: "warn" } },
    { route: { page: "resource", namespace: "", kind: "Namespace", name: "shop" }, filters: NONE },
    { route: { page: "resource", namespace: "shop", kind: "Pod", name: "web" }, filters: { ...NONE, q: "team" } },
  ];
  for (const s of states) assert.deepEqual(parseFragment(formatFragment(s)), s, formatFragment(s));
  assert.equal(formatFragment(states[1]!), "#/?status=fail&namespace=shop&severity=high&q=a+b%26c");
  assert.equal(formatFragment(states[3]!), "#/resource/-/Namespace/shop");
});

test("an unknown or broken fragment is the overview, never a throw", () => {
  for (const f of ["", "#", "#/nope", "#/policy", "#/policy/%E0%A4%A", "#/resource/a/b"])
    assert.equal(parseFragment(f).route.page, f === "#/policy/%E0%A4%A" ? "policy" : "overview", f);
});

test("the route and every filter narrow the rows; the search looks at policy, rule, name and message", () => {
  const rows = rowsOfReport("PolicyReport", {
    metadata: { namespace: "shop" },
    results: [
      {
        policy: "p1",
        rule: "r1",
        result: "fail",
        severity: "high",
        message: "no team",
        resources: [{ kind: "Pod", name: "web" }],
      },
      { policy: "p1", rule: "r1", result: "pass", resources: [{ kind: "Pod", name: "api" }] },
      { policy: "p2", rule: "r2", result: "fail", resources: [{ kind: "Pod", name: "web", namespace: "dev" }] },
    ],
  });
  const names = (s: Partial<ViewState["filters"]>, route: ViewState["route"] = { page: "overview" }) =>
    visibleRows(rows, { route, filters: { ...NONE, ...s } }).map((r) => `${r.policy}/${r.namespace}/${r.name}`);
  assert.deepEqual(names({}), ["p1/shop/web", "p1/shop/api", "p2/dev/web"]);
  assert.deepEqual(names({ status: "fail" }), ["p1/shop/web", "p2/dev/web"]);
  assert.deepEqual(names({ namespace: "dev" }), ["p2/dev/web"]);
  assert.deepEqual(names({ severity: "high" }), ["p1/shop/web"]);
  assert.deepEqual(names({ q: "TEAM" }), ["p1/shop/web"]);
  assert.deepEqual(names({ q: "r2" }), ["p2/dev/web"]);
  assert.deepEqual(names({}, { page: "policy", policy: "p1" }), ["p1/shop/web", "p1/shop/api"]);
  assert.deepEqual(names({}, { page: "resource", namespace: "shop", kind: "Pod", name: "web" }), ["p1/shop/web"]);
});
