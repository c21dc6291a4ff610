import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import type { MatchResources, ResourceDescription, Rule } from "../api/policy.js";
import { parseApiVersion, type RequestUserInfo, type Resource } from "../api/resource.js";
import { compileMatch, matchRule } from "./match-rule.js";
import type { MatchRequest } from "./types.js";

function obj(apiVersion: string, kind: string, metadata: JsonObject): Resource {
  return { apiVersion, kind, metadata };
}
const pod = (metadata: JsonObject = { name: "web", namespace: "prod" }): Resource => obj("v1", "Pod", metadata);

const alice: RequestUserInfo = {
  username: "alice",
  groups: ["devs", "system:authenticated"],
  roles: ["prod:editor"],
  clusterRoles: ["view"],
};

function req(resource: Resource, extra: Partial<MatchRequest> = {}): MatchRequest {
  const { group, version } = parseApiVersion(String(resource["apiVersion"]));
  return {
    resource,
    operation: "CREATE",
    gvk: { group, version, kind: String(resource["kind"]) },
    subresource: "",
    userInfo: alice,
    namespaceLabels: { env: "production" },
    policyNamespace: "",
    ...extra,
  };
}

const anyOf = (...resources: ResourceDescription[]): MatchResources => ({ any: resources.map((r) => ({ resources: r })) });

/** The reason-building path and the pipeline's boolean path must always agree; every case checks both. */
function outcome(rule: Pick<Rule, "match" | "exclude">, r: MatchRequest): string {
  const o = matchRule(rule, r);
  assert.equal(compileMatch(rule).matches(r), o.matched, "matches() disagrees with match()");
  return o.matched ? "matched" : o.reason;
}

describe("resource attributes (each alone in match.any[0])", () => {
  const cases: [string, ResourceDescription, MatchRequest, RegExp | "matched"][] = [
    ["kinds pass", { kinds: ["Pod"] }, req(pod()), "matched"],
    ["kinds fail", { kinds: ["Deployment"] }, req(pod()), /kind Pod is not one of \[Deployment\]/],
    ["kinds subresource", { kinds: ["Pod/status"] }, req(pod(), { subresource: "status" }), "matched"],
    ["plain kind skips subresource", { kinds: ["Pod"] }, req(pod(), { subresource: "status" }), /kind Pod\/status is not one of/],
    ["Pod matches ephemeralcontainers", { kinds: ["Pod"] }, req(pod(), { subresource: "ephemeralcontainers" }), "matched"],
    ["name wildcard pass", { name: "w?b" }, req(pod()), "matched"],
    ["name fail", { name: "db" }, req(pod()), /name "web" does not match "db"/],
    ["names pass", { names: ["db", "we*"] }, req(pod()), "matched"],
    ["names fail", { names: ["db", "api"] }, req(pod()), /name "web" matches none of \[db, api\]/],
    ["generateName fallback", { names: ["web-*"] }, req(pod({ generateName: "web-", namespace: "prod" })), "matched"],
    ["namespaces pass", { namespaces: ["pr*"] }, req(pod()), "matched"],
    ["namespaces fail", { namespaces: ["dev"] }, req(pod()), /namespace "prod" matches none of \[dev\]/],
    ["Namespace uses its own name", { namespaces: ["team-*"] }, req(obj("v1", "Namespace", { name: "team-a" })), "matched"],
    ["annotations pass", { annotations: { "owner/*": "te?m" } }, req(pod({ name: "web", annotations: { "owner/x": "team" } })), "matched"],
    ["annotations fail", { annotations: { owner: "team" } }, req(pod({ name: "web", annotations: { owner: "other" } })), /no annotation matches owner: team/],
    ["selector pass", { selector: { matchLabels: { app: "web" } } }, req(pod({ name: "web", labels: { app: "web" } })), "matched"],
    ["selector fail", { selector: { matchLabels: { app: "web" } } }, req(pod({ name: "web", labels: { app: "db" } })), /labels do not match the selector/],
    ["selector invalid", { selector: { matchLabels: { app: "a b" } } }, req(pod()), /selector is invalid/],
    ["namespaceSelector pass", { namespaceSelector: { matchLabels: { env: "production" } } }, req(pod()), "matched"],
    ["namespaceSelector fail", { namespaceSelector: { matchLabels: { env: "dev" } } }, req(pod()), /namespace labels do not match the namespaceSelector/],
    ["namespaceSelector not evaluated for a Namespace", { kinds: ["Namespace"], namespaceSelector: { matchLabels: { env: "dev" } } }, req(obj("v1", "Namespace", { name: "x" })), "matched"],
    ["operations pass", { operations: ["CREATE", "UPDATE"] }, req(pod()), "matched"],
    ["operations fail", { operations: ["CREATE"] }, req(pod(), { operation: "DELETE" }), /operation DELETE is not one of \[CREATE\]/],
    ["operations absent: DELETE matches", { kinds: ["Pod"] }, req(pod(), { operation: "DELETE" }), "matched"],
    ["empty kinds list counts as written", { kinds: [] }, req(pod()), "matched"],
  ];
  for (const [name, rd, r, want] of cases) {
    test(name, () => {
      const got = outcome({ match: anyOf(rd) }, r);
      if (want === "matched") assert.equal(got, "matched");
      else assert.match(got, want);
    });
  }
  test("attributes within one filter are ANDed", () => {
    assert.match(outcome({ match: anyOf({ kinds: ["Pod"], namespaces: ["dev"] }) }, req(pod())), /namespace "prod"/);
  });
});

describe("match blocks", () => {
  test("any: one filter is enough; the reason lists every filter", () => {
    assert.equal(outcome({ match: anyOf({ kinds: ["Service"] }, { kinds: ["Pod"] }) }, req(pod())), "matched");
    assert.match(outcome({ match: anyOf({ kinds: ["Service"] }, { names: ["db"] }) }, req(pod())), /no filter in match\.any selects the resource: \[0\] kind Pod .* \| \[1\] name "web"/);
  });
  test("all: every filter must hold", () => {
    const all = { all: [{ resources: { kinds: ["Pod"] } }, { resources: { namespaces: ["dev"] } }] };
    assert.match(outcome({ match: all }, req(pod())), /^match\.all\[1\] does not select the resource: namespace "prod"/);
    assert.equal(outcome({ match: { all: [{ resources: { kinds: ["Pod"] } }, { resources: { namespaces: ["prod"] } }] } }, req(pod())), "matched");
  });
  test("legacy form directly under match", () => {
    assert.equal(outcome({ match: { resources: { kinds: ["Pod"] } } }, req(pod())), "matched");
    assert.match(outcome({ match: { resources: { kinds: ["Secret"] } } }, req(pod())), /^match does not select the resource: kind Pod/);
  });
  test("an empty filter never matches", () => {
    assert.match(outcome({ match: { any: [{}] } }, req(pod())), /match cannot be empty/);
    assert.match(outcome({ match: {} }, req(pod())), /match cannot be empty/);
    assert.match(outcome({}, req(pod())), /match cannot be empty/);
  });
});

describe("exclude", () => {
  const match = anyOf({ kinds: ["Pod"] });
  test("exclude.any excludes when one filter selects", () => {
    const exclude = anyOf({ namespaces: ["kube-system"] }, { names: ["we*"] });
    assert.equal(outcome({ match, exclude }, req(pod())), "the resource is excluded by exclude.any[1]");
  });
  test("exclude.any keeps the resource when no filter selects", () => {
    assert.equal(outcome({ match, exclude: anyOf({ namespaces: ["kube-system"] }) }, req(pod())), "matched");
  });
  test("exclude.all excludes only when every filter selects", () => {
    const some = { all: [{ resources: { namespaces: ["prod"] } }, { resources: { names: ["db"] } }] };
    assert.equal(outcome({ match, exclude: some }, req(pod())), "matched");
    const every = { all: [{ resources: { namespaces: ["prod"] } }, { resources: { names: ["web"] } }] };
    assert.match(outcome({ match, exclude: every }, req(pod())), /excluded by exclude\.all/);
  });
  test("legacy exclude", () => {
    assert.equal(outcome({ match, exclude: { resources: { namespaces: ["prod"] } } }, req(pod())), "the resource is excluded by exclude");
  });
  test("an empty exclude filter excludes nothing", () => {
    assert.equal(outcome({ match, exclude: { any: [{}] } }, req(pod())), "matched");
    assert.equal(outcome({ match, exclude: {} }, req(pod())), "matched");
  });
});

describe("user info", () => {
  const withUser = (f: object): MatchResources => ({ any: [{ resources: { kinds: ["Pod"] }, ...f }] });
  const cases: [string, object, RequestUserInfo | undefined, RegExp | "matched"][] = [
    ["roles pass", { roles: ["prod:editor"] }, alice, "matched"],
    ["roles are exact", { roles: ["prod:*"] }, alice, /roles include none of \[prod:\*\]/],
    ["clusterRoles pass", { clusterRoles: ["admin", "view"] }, alice, "matched"],
    ["clusterRoles fail", { clusterRoles: ["admin"] }, alice, /cluster roles include none of \[admin\]/],
    ["User subject wildcard", { subjects: [{ kind: "User", name: "al*" }] }, alice, "matched"],
    ["Group subject", { subjects: [{ kind: "Group", name: "dev?" }] }, alice, "matched"],
    ["subject fails", { subjects: [{ kind: "User", name: "bob" }] }, alice, /user "alice" matches none of the subjects \[User bob\]/],
    ["ServiceAccount subject", { subjects: [{ kind: "ServiceAccount", name: "ci-*", namespace: "tools" }] }, { ...alice, username: "system:serviceaccount:tools:ci-bot" }, "matched"],
    ["ServiceAccount namespace differs", { subjects: [{ kind: "ServiceAccount", name: "ci", namespace: "tools" }] }, { ...alice, username: "system:serviceaccount:other:ci" }, /matches none of the subjects/],
    ["background: user info in match is ignored", { subjects: [{ kind: "User", name: "bob" }] }, undefined, "matched"],
  ];
  for (const [name, f, user, want] of cases) {
    test(name, () => {
      const r = user === undefined ? { ...req(pod()), userInfo: undefined } : req(pod(), { userInfo: user });
      const got = outcome({ match: withUser(f) }, r as MatchRequest);
      if (want === "matched") assert.equal(got, "matched");
      else assert.match(got, want);
    });
  }
  test("background: a match filter with only user info is empty", () => {
    const r: MatchRequest = { ...req(pod()), userInfo: { username: "", groups: [], roles: [], clusterRoles: [] } };
    assert.match(outcome({ match: { any: [{ subjects: [{ kind: "User", name: "*" }] }] } }, r), /match cannot be empty/);
  });
  test("exclude by subject at admission, not in background", () => {
    const rule = { match: anyOf({ kinds: ["Pod"] }), exclude: { any: [{ subjects: [{ kind: "Group" as const, name: "devs" }] }] } };
    assert.match(outcome(rule, req(pod())), /excluded by exclude\.any\[0\]/);
    const background: MatchRequest = { ...req(pod()), userInfo: { username: "", groups: [], roles: [], clusterRoles: [] } };
    assert.equal(outcome(rule, background), "matched");
  });
});

describe("policy namespace", () => {
  const match = anyOf({ kinds: ["Pod", "Namespace"] });
  test("a namespaced Policy sees its own namespace", () => {
    assert.equal(outcome({ match }, req(pod(), { policyNamespace: "prod" })), "matched");
  });
  test("a namespaced Policy ignores other namespaces", () => {
    assert.match(outcome({ match }, req(pod(), { policyNamespace: "dev" })), /applies only in namespace "dev" and the resource is in namespace "prod"/);
  });
  test("a namespaced Policy ignores cluster-scoped resources", () => {
    assert.match(outcome({ match }, req(obj("v1", "Namespace", { name: "dev" }), { policyNamespace: "dev" })), /resource is cluster-scoped/);
  });
});

describe("the kind prefilter of the boolean path", () => {
  const deployment = obj("apps/v1", "Deployment", { name: "web", namespace: "prod" });
  const cases: { name: string; match: MatchResources; resource: Resource; subresource?: string; want: boolean }[] = [
    { name: "literal kind selects", match: anyOf({ kinds: ["Pod"] }), resource: pod(), want: true },
    { name: "other kind is rejected", match: anyOf({ kinds: ["Pod"] }), resource: deployment, want: false },
    { name: "group/version qualified kind", match: anyOf({ kinds: ["apps/v1/Deployment"] }), resource: deployment, want: true },
    { name: "wildcard kind is not prefiltered", match: anyOf({ kinds: ["Deploy*"] }), resource: deployment, want: true },
    { name: "star selects everything", match: anyOf({ kinds: ["*"] }), resource: deployment, want: true },
    { name: "a filter without kinds keeps the rule open", match: anyOf({ kinds: ["Pod"] }, { names: ["web"] }), resource: deployment, want: true },
    { name: "subresource selector keeps its kind", match: anyOf({ kinds: ["Pod/ephemeralcontainers"] }), resource: pod(), subresource: "ephemeralcontainers", want: true },
    { name: "all: one filter's kinds are necessary", match: { all: [{ resources: { namespaces: ["prod"] } }, { resources: { kinds: ["Pod"] } }] }, resource: deployment, want: false },
    { name: "all: both hold", match: { all: [{ resources: { namespaces: ["prod"] } }, { resources: { kinds: ["Deployment"] } }] }, resource: deployment, want: true },
    { name: "legacy block", match: { resources: { kinds: ["Pod"] } }, resource: deployment, want: false },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const r = req(c.resource, c.subresource !== undefined ? { subresource: c.subresource } : {});
      assert.equal(outcome({ match: c.match }, r) === "matched", c.want);
    });
  }
});
