import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import type { MatchResources, ResourceDescription, Rule } from "../api/policy.js";
import { parseApiVersion, type RequestUserInfo, type Resource } from "../api/resource.js";
import { compileMatch } from "./match-rule.js";
import type { MatchRequest } from "./types.js";
import { textOf } from "../api/json.js";

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
  const { group, version } = parseApiVersion(textOf(resource["apiVersion"]));
  return {
    resource,
    operation: "CREATE",
    gvk: { group, version, kind: textOf(resource["kind"]) },
    subresource: "",
    userInfo: alice,
    namespaceLabels: { env: "production" },
    policyNamespace: "",
    ...extra,
  };
}

const anyOf = (...resources: ResourceDescription[]): MatchResources => ({
  any: resources.map((r) => ({ resources: r })),
});

function matches(rule: Pick<Rule, "match" | "exclude">, r: MatchRequest): boolean {
  return compileMatch(rule).matches(r);
}

describe("resource attributes (each alone in match.any[0])", () => {
  const cases: [string, ResourceDescription, MatchRequest, boolean][] = [
    ["kinds pass", { kinds: ["Pod"] }, req(pod()), true],
    ["kinds fail", { kinds: ["Deployment"] }, req(pod()), false],
    ["kinds subresource", { kinds: ["Pod/status"] }, req(pod(), { subresource: "status" }), true],
    ["plain kind skips subresource", { kinds: ["Pod"] }, req(pod(), { subresource: "status" }), false],
    ["Pod matches ephemeralcontainers", { kinds: ["Pod"] }, req(pod(), { subresource: "ephemeralcontainers" }), true],
    ["name wildcard pass", { name: "w?b" }, req(pod()), true],
    ["name fail", { name: "db" }, req(pod()), false],
    ["names pass", { names: ["db", "we*"] }, req(pod()), true],
    ["names fail", { names: ["db", "api"] }, req(pod()), false],
    ["generateName fallback", { names: ["web-*"] }, req(pod({ generateName: "web-", namespace: "prod" })), true],
    ["namespaces pass", { namespaces: ["pr*"] }, req(pod()), true],
    ["namespaces fail", { namespaces: ["dev"] }, req(pod()), false],
    ["Namespace uses its own name", { namespaces: ["team-*"] }, req(obj("v1", "Namespace", { name: "team-a" })), true],
    [
      "annotations pass",
      { annotations: { "owner/*": "te?m" } },
      req(pod({ name: "web", annotations: { "owner/x": "team" } })),
      true,
    ],
    [
      "annotations fail",
      { annotations: { owner: "team" } },
      req(pod({ name: "web", annotations: { owner: "other" } })),
      false,
    ],
    [
      "selector pass",
      { selector: { matchLabels: { app: "web" } } },
      req(pod({ name: "web", labels: { app: "web" } })),
      true,
    ],
    [
      "selector fail",
      { selector: { matchLabels: { app: "web" } } },
      req(pod({ name: "web", labels: { app: "db" } })),
      false,
    ],
    ["selector invalid", { selector: { matchLabels: { app: "a b" } } }, req(pod()), false],
    ["namespaceSelector pass", { namespaceSelector: { matchLabels: { env: "production" } } }, req(pod()), true],
    ["namespaceSelector fail", { namespaceSelector: { matchLabels: { env: "dev" } } }, req(pod()), false],
    [
      "namespaceSelector not evaluated for a Namespace",
      { kinds: ["Namespace"], namespaceSelector: { matchLabels: { env: "dev" } } },
      req(obj("v1", "Namespace", { name: "x" })),
      true,
    ],
    ["operations pass", { operations: ["CREATE", "UPDATE"] }, req(pod()), true],
    ["operations fail", { operations: ["CREATE"] }, req(pod(), { operation: "DELETE" }), false],
    ["operations absent: DELETE matches", { kinds: ["Pod"] }, req(pod(), { operation: "DELETE" }), true],
    ["empty kinds list counts as written", { kinds: [] }, req(pod()), true],
  ];
  for (const [name, rd, r, want] of cases) {
    test(name, () => {
      assert.equal(matches({ match: anyOf(rd) }, r), want);
    });
  }
  test("attributes within one filter are ANDed", () => {
    assert.equal(matches({ match: anyOf({ kinds: ["Pod"], namespaces: ["dev"] }) }, req(pod())), false);
  });
});

describe("match blocks", () => {
  test("any: one filter is enough; none is not", () => {
    assert.equal(matches({ match: anyOf({ kinds: ["Service"] }, { kinds: ["Pod"] }) }, req(pod())), true);
    assert.equal(matches({ match: anyOf({ kinds: ["Service"] }, { names: ["db"] }) }, req(pod())), false);
  });
  test("all: every filter must hold", () => {
    const all = { all: [{ resources: { kinds: ["Pod"] } }, { resources: { namespaces: ["dev"] } }] };
    assert.equal(matches({ match: all }, req(pod())), false);
    assert.equal(
      matches(
        { match: { all: [{ resources: { kinds: ["Pod"] } }, { resources: { namespaces: ["prod"] } }] } },
        req(pod()),
      ),
      true,
    );
  });
  test("legacy form directly under match", () => {
    assert.equal(matches({ match: { resources: { kinds: ["Pod"] } } }, req(pod())), true);
    assert.equal(matches({ match: { resources: { kinds: ["Secret"] } } }, req(pod())), false);
  });
  test("an empty filter never matches", () => {
    assert.equal(matches({ match: { any: [{}] } }, req(pod())), false);
    assert.equal(matches({ match: {} }, req(pod())), false);
    assert.equal(matches({}, req(pod())), false);
  });
});

describe("exclude", () => {
  const match = anyOf({ kinds: ["Pod"] });
  test("exclude.any excludes when one filter selects", () => {
    const exclude = anyOf({ namespaces: ["kube-system"] }, { names: ["we*"] });
    assert.equal(matches({ match, exclude }, req(pod())), false);
  });
  test("exclude.any keeps the resource when no filter selects", () => {
    assert.equal(matches({ match, exclude: anyOf({ namespaces: ["kube-system"] }) }, req(pod())), true);
  });
  test("exclude.all excludes only when every filter selects", () => {
    const some = { all: [{ resources: { namespaces: ["prod"] } }, { resources: { names: ["db"] } }] };
    assert.equal(matches({ match, exclude: some }, req(pod())), true);
    const every = { all: [{ resources: { namespaces: ["prod"] } }, { resources: { names: ["web"] } }] };
    assert.equal(matches({ match, exclude: every }, req(pod())), false);
  });
  test("legacy exclude", () => {
    assert.equal(matches({ match, exclude: { resources: { namespaces: ["prod"] } } }, req(pod())), false);
  });
  test("an empty exclude filter excludes nothing", () => {
    assert.equal(matches({ match, exclude: { any: [{}] } }, req(pod())), true);
    assert.equal(matches({ match, exclude: {} }, req(pod())), true);
  });
});

describe("user info", () => {
  const withUser = (f: object): MatchResources => ({ any: [{ resources: { kinds: ["Pod"] }, ...f }] });
  const cases: [string, object, RequestUserInfo | undefined, boolean][] = [
    ["roles pass", { roles: ["prod:editor"] }, alice, true],
    ["roles are exact", { roles: ["prod:*"] }, alice, false],
    ["clusterRoles pass", { clusterRoles: ["admin", "view"] }, alice, true],
    ["clusterRoles fail", { clusterRoles: ["admin"] }, alice, false],
    ["User subject wildcard", { subjects: [{ kind: "User", name: "al*" }] }, alice, true],
    ["Group subject", { subjects: [{ kind: "Group", name: "dev?" }] }, alice, true],
    ["subject fails", { subjects: [{ kind: "User", name: "bob" }] }, alice, false],
    [
      "ServiceAccount subject",
      { subjects: [{ kind: "ServiceAccount", name: "ci-*", namespace: "tools" }] },
      { ...alice, username: "system:serviceaccount:tools:ci-bot" },
      true,
    ],
    [
      "ServiceAccount namespace differs",
      { subjects: [{ kind: "ServiceAccount", name: "ci", namespace: "tools" }] },
      { ...alice, username: "system:serviceaccount:other:ci" },
      false,
    ],
    ["background: user info in match is ignored", { subjects: [{ kind: "User", name: "bob" }] }, undefined, true],
  ];
  for (const [name, f, user, want] of cases) {
    test(name, () => {
      const r = user === undefined ? { ...req(pod()), userInfo: undefined } : req(pod(), { userInfo: user });
      assert.equal(matches({ match: withUser(f) }, r as MatchRequest), want);
    });
  }
  test("background: a match filter with only user info is empty", () => {
    const r: MatchRequest = { ...req(pod()), userInfo: { username: "", groups: [], roles: [], clusterRoles: [] } };
    assert.equal(matches({ match: { any: [{ subjects: [{ kind: "User", name: "*" }] }] } }, r), false);
  });
  test("exclude by subject at admission, not in background", () => {
    const rule = {
      match: anyOf({ kinds: ["Pod"] }),
      exclude: { any: [{ subjects: [{ kind: "Group" as const, name: "devs" }] }] },
    };
    assert.equal(matches(rule, req(pod())), false);
    const background: MatchRequest = {
      ...req(pod()),
      userInfo: { username: "", groups: [], roles: [], clusterRoles: [] },
    };
    assert.equal(matches(rule, background), true);
  });
});

describe("policy namespace", () => {
  const match = anyOf({ kinds: ["Pod", "Namespace"] });
  test("a namespaced Policy sees its own namespace", () => {
    assert.equal(matches({ match }, req(pod(), { policyNamespace: "prod" })), true);
  });
  test("a namespaced Policy ignores other namespaces", () => {
    assert.equal(matches({ match }, req(pod(), { policyNamespace: "dev" })), false);
  });
  test("a namespaced Policy ignores cluster-scoped resources", () => {
    assert.equal(matches({ match }, req(obj("v1", "Namespace", { name: "dev" }), { policyNamespace: "dev" })), false);
  });
});

describe("the kind prefilter", () => {
  const deployment = obj("apps/v1", "Deployment", { name: "web", namespace: "prod" });
  const cases: { name: string; match: MatchResources; resource: Resource; subresource?: string; want: boolean }[] = [
    { name: "literal kind selects", match: anyOf({ kinds: ["Pod"] }), resource: pod(), want: true },
    { name: "other kind is rejected", match: anyOf({ kinds: ["Pod"] }), resource: deployment, want: false },
    {
      name: "group/version qualified kind",
      match: anyOf({ kinds: ["apps/v1/Deployment"] }),
      resource: deployment,
      want: true,
    },
    {
      name: "wildcard kind is not prefiltered",
      match: anyOf({ kinds: ["Deploy*"] }),
      resource: deployment,
      want: true,
    },
    { name: "star selects everything", match: anyOf({ kinds: ["*"] }), resource: deployment, want: true },
    {
      name: "a filter without kinds keeps the rule open",
      match: anyOf({ kinds: ["Pod"] }, { names: ["web"] }),
      resource: deployment,
      want: true,
    },
    {
      name: "subresource selector keeps its kind",
      match: anyOf({ kinds: ["Pod/ephemeralcontainers"] }),
      resource: pod(),
      subresource: "ephemeralcontainers",
      want: true,
    },
    {
      name: "all: one filter's kinds are necessary",
      match: { all: [{ resources: { namespaces: ["prod"] } }, { resources: { kinds: ["Pod"] } }] },
      resource: deployment,
      want: false,
    },
    {
      name: "all: both hold",
      match: { all: [{ resources: { namespaces: ["prod"] } }, { resources: { kinds: ["Deployment"] } }] },
      resource: deployment,
      want: true,
    },
    { name: "legacy block", match: { resources: { kinds: ["Pod"] } }, resource: deployment, want: false },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const r = req(c.resource, c.subresource !== undefined ? { subresource: c.subresource } : {});
      assert.equal(matches({ match: c.match }, r), c.want);
    });
  }
});
