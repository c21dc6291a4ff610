/**
 * The author check (tenant-isolation.md rule 4): each thing a policy makes the background
 * controller do is asked as the author (their name, groups, uid and extra), and a refusal names
 * the author, the verbs, the resource and the namespace.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type CompiledPolicy, type JsonObject } from "../../engine/index.js";
import type { KindSelector } from "../../kube/discovered-kinds.js";
import type { ResourceAccess } from "../../kube/access-review.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { authorPermissionProblems, type AuthorChecks, type PolicyAuthor } from "./author-access.js";

const engine = createEngine(fakePorts());

function compiled(doc: JsonObject): CompiledPolicy {
  const out = engine.compile(doc);
  assert.ok(out.ok, out.ok ? "" : JSON.stringify(out.problems));
  return out.policy;
}

const author: PolicyAuthor = {
  username: "carol",
  uid: "u-1",
  groups: ["team-a", "system:authenticated"],
  extra: { scopes: ["x"] },
};

const RESOURCES: Record<string, { group: string; resource: string; namespaced: boolean }> = {
  Secret: { group: "", resource: "secrets", namespaced: true },
  ConfigMap: { group: "", resource: "configmaps", namespaced: true },
  RoleBinding: { group: "rbac.authorization.k8s.io", resource: "rolebindings", namespaced: true },
};

/** Allowed: what `allow` says of `verb resource namespace`; every ask recorded. */
function checks(allow: (key: string) => boolean): { checks: AuthorChecks; asked: ResourceAccess[] } {
  const asked: ResourceAccess[] = [];
  return {
    asked,
    checks: {
      resolve: (s: KindSelector) => {
        const r = RESOURCES[s.kind];
        return r === undefined ? [] : [r];
      },
      canI: (a) => {
        asked.push(a);
        return Promise.resolve(allow(`${a.verb} ${a.resource} ${a.namespace}`));
      },
    },
  };
}

const syncSecret = compiled({
  apiVersion: "kyverno.io/v1",
  kind: "Policy",
  metadata: { name: "copy", namespace: "tenant-a" },
  spec: {
    rules: [
      {
        name: "copy",
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        generate: {
          apiVersion: "v1",
          kind: "Secret",
          name: "copy",
          namespace: "tenant-a",
          clone: { namespace: "tenant-a", name: "db-password" },
        },
      },
    ],
  },
});

describe("authorPermissionProblems", () => {
  test("asked as the author, with the whole user info; allowed everything: no problem", async () => {
    const c = checks(() => true);
    assert.deepEqual(await authorPermissionProblems(syncSecret, author, c.checks), []);
    assert.equal(c.asked.length, 5, "create, update, get, delete of the target and get of the source");
    for (const a of c.asked) {
      assert.equal(a.user, "carol");
      assert.deepEqual(a.groups, ["team-a", "system:authenticated"]);
      assert.equal(a.uid, "u-1");
      assert.deepEqual(a.extra, { scopes: ["x"] });
      assert.equal(a.namespace, "tenant-a");
    }
    assert.ok(
      c.asked.some((a) => a.verb === "get" && a.name === "db-password"),
      "the clone source by name",
    );
  });

  test("an author who may not read the source is refused for the clone, naming the verb, object and namespace", async () => {
    const c = checks((k) => k !== "get secrets tenant-a");
    const problems = await authorPermissionProblems(syncSecret, author, c.checks);
    assert.deepEqual(
      problems.map((p) => p.path),
      ["spec.rules[0].generate", "spec.rules[0].generate.clone"],
    );
    const clone = problems[1]?.message ?? "";
    assert.match(clone, /^the policy's author carol may not get secrets named db-password in namespace tenant-a; /);
    assert.match(clone, /never beyond what they may do \(tenant isolation, rule 4\)/);
  });

  test("a RoleBinding the author may not create is refused; a GeneratingPolicy needs every resource in its scope", async () => {
    const binding = compiled({
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "bind" },
      spec: {
        rules: [
          {
            name: "bind",
            match: { any: [{ resources: { kinds: ["Namespace"] } }] },
            generate: {
              apiVersion: "rbac.authorization.k8s.io/v1",
              kind: "RoleBinding",
              name: "admin",
              namespace: "{{request.object.metadata.name}}",
              data: {},
            },
          },
        ],
      },
    });
    const onlyConfigMaps = checks((k) => k.includes(" configmaps "));
    const [p] = await authorPermissionProblems(binding, author, onlyConfigMaps.checks);
    assert.equal(
      p?.message.split(";")[0],
      "the policy's author carol may not create, update, get, delete rolebindings.rbac.authorization.k8s.io in every namespace (or cluster-wide)",
    );
    const gpol = compiled({
      apiVersion: "policies.kyverno.io/v1",
      kind: "NamespacedGeneratingPolicy",
      metadata: { name: "g", namespace: "tenant-a" },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
        },
        generate: [{ expression: "true" }],
      },
    });
    const [g] = await authorPermissionProblems(gpol, author, onlyConfigMaps.checks);
    assert.equal(g?.path, "spec.generate");
    assert.match(
      g?.message ?? "",
      /^the policy's author carol may not create, update, get, delete every resource in namespace tenant-a;/,
    );
    assert.ok(onlyConfigMaps.asked.some((a) => a.resource === "*" && a.group === "*"));
  });
});
