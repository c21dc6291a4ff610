/** The mutate pipeline end to end through the real modules, with fake ports. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { ok } from "../api/result.js";
import { createEngine } from "../engine.js";
import type { ExistingResources } from "../generate/index.js";
import { applyJsonPatch } from "../mutate/json-patch/index.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { EngineRequest } from "./types.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, deployment, pod } from "../../../test/support/builders.js";

const engine = createEngine(fakePorts());
const matchPods = { any: [{ resources: { kinds: ["Pod"] } }] };

function compile(doc: JsonObject): CompiledPolicy {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(r.problems.map((p) => `${p.path}: ${p.message}`).join("; "));
  return r.policy;
}

function request(resource: JsonObject, extra: Partial<EngineRequest> = {}): EngineRequest {
  return { resource, operation: "CREATE", namespaceLabels: {}, ...extra };
}

function mutate(
  rules: JsonObject[],
  resource: JsonObject,
  extra: Partial<EngineRequest> = {},
  existing?: ExistingResources,
) {
  return engine.mutate(compile(clusterPolicy("p", rules)), request(resource, extra), existing);
}

const labelRule = (name: string, patch: JsonObject): JsonObject => ({
  name,
  match: matchPods,
  mutate: { patchStrategicMerge: patch },
});

describe("mutate rules", () => {
  test("a change is a pass with Kyverno's message and the patched resource", () => {
    const r = mutate([labelRule("team", { metadata: { labels: { "+(team)": "bravo" } } })], pod({ name: "web" }));
    assert.deepEqual(r.rules, [
      { rule: "team", type: "Mutation", status: "pass", message: "mutated Pod/web in namespace default" },
    ]);
    assert.deepEqual((r.patchedResource?.["metadata"] as JsonObject)["labels"], { team: "bravo" });
  });

  test("a patch that changes nothing is a skip, and the resource is untouched", () => {
    const input = pod({ name: "web", labels: { team: "alpha" } });
    const r = mutate([labelRule("team", { metadata: { labels: { "+(team)": "bravo" } } })], input);
    assert.equal(r.rules[0]?.status, "skip");
    assert.equal(r.rules[0]?.message, "no patches applied");
    assert.equal(r.patchedResource, input);
  });

  test("a failed conditional anchor is a skip with Kyverno's text", () => {
    const r = mutate(
      [labelRule("c", { metadata: { labels: { "(env)": "prod" } }, spec: { priority: 5 } })],
      pod({ name: "web", labels: { env: "dev" } }),
    );
    assert.equal(r.rules[0]?.status, "skip");
    assert.equal(r.rules[0]?.message, "no patches applied");
  });

  test("rules cascade: a later rule sees (and matches on) the earlier rule's patch through request.object", () => {
    const rules = [
      labelRule("first", { metadata: { labels: { tier: "web" } } }),
      labelRule("second", { metadata: { annotations: { copied: "{{ request.object.metadata.labels.tier }}" } } }),
    ];
    const r = mutate(rules, pod({ name: "web" }));
    assert.deepEqual(
      r.rules.map((x) => x.status),
      ["pass", "pass"],
    );
    assert.deepEqual((r.patchedResource?.["metadata"] as JsonObject)["annotations"], { copied: "web" });
  });

  test("typed substitution: a field that is exactly one variable keeps the number", () => {
    const rule: JsonObject = {
      name: "grace",
      match: matchPods,
      context: [{ name: "base", variable: { jmesPath: "request.object.metadata.labels.drain || '20'" } }],
      mutate: { patchStrategicMerge: { spec: { terminationGracePeriodSeconds: "{{ add(to_number(base), `10`) }}" } } },
    };
    assert.equal(
      (mutate([rule], pod({ name: "a", labels: { drain: "45" } })).patchedResource?.["spec"] as JsonObject)[
        "terminationGracePeriodSeconds"
      ],
      55,
    );
    assert.equal(
      (mutate([rule], pod({ name: "b" })).patchedResource?.["spec"] as JsonObject)["terminationGracePeriodSeconds"],
      30,
    );
  });

  test("patchesJson6902: escaped paths and `-` append; a failing operation is an error naming it", () => {
    const patch =
      "- op: add\n  path: /metadata/annotations\n  value: {}\n- op: add\n  path: /metadata/annotations/example.com~1owner\n  value: team-a\n- op: add\n  path: /spec/containers/-\n  value: {name: side, image: s:1}\n";
    const r = mutate([{ name: "j", match: matchPods, mutate: { patchesJson6902: patch } }], pod({ name: "web" }));
    assert.equal(r.rules[0]?.status, "pass");
    const out = r.patchedResource as JsonObject;
    assert.deepEqual((out["metadata"] as JsonObject)["annotations"], { "example.com/owner": "team-a" });
    assert.deepEqual(
      ((out["spec"] as JsonObject)["containers"] as JsonObject[]).map((c) => c["name"]),
      ["app", "side"],
    );
    const bad = mutate(
      [
        {
          name: "j",
          match: matchPods,
          mutate: { patchesJson6902: "- op: replace\n  path: /spec/nothing\n  value: 1\n" },
        },
      ],
      pod({ name: "web" }),
    );
    assert.equal(bad.rules[0]?.status, "error");
    assert.match(bad.rules[0]?.message ?? "", /operation 0 \(replace \/spec\/nothing\)/);
  });

  test("foreach with patchStrategicMerge runs in reverse by default, so new elements keep list order", () => {
    const twoContainers = pod({
      name: "web",
      containers: [
        { name: "a", image: "a:1" },
        { name: "b", image: "b:1" },
      ],
    });
    const rule: JsonObject = {
      name: "sidecars",
      match: matchPods,
      mutate: {
        foreach: [
          {
            list: "request.object.spec.containers",
            patchStrategicMerge: { spec: { initContainers: [{ name: "init-{{ element.name }}", image: "i:1" }] } },
          },
        ],
      },
    };
    const out = mutate([rule], twoContainers).patchedResource?.["spec"] as JsonObject;
    assert.deepEqual(
      (out["initContainers"] as JsonObject[]).map((c) => c["name"]),
      ["init-a", "init-b"],
    );
    const ascending = {
      ...rule,
      mutate: { foreach: [{ ...(rule["mutate"] as { foreach: JsonObject[] }).foreach[0], order: "Ascending" }] },
    };
    const out2 = mutate([ascending], twoContainers).patchedResource?.["spec"] as JsonObject;
    assert.deepEqual(
      (out2["initContainers"] as JsonObject[]).map((c) => c["name"]),
      ["init-b", "init-a"],
    );
  });

  test("foreach with patchesJson6902 runs in list order with elementIndex in paths; preconditions skip elements", () => {
    const p = pod({
      name: "web",
      containers: [
        { name: "a", image: "a:latest" },
        { name: "b", image: "b:1" },
        { name: "c", image: "c:latest" },
      ],
    });
    const rule: JsonObject = {
      name: "pull",
      match: matchPods,
      mutate: {
        foreach: [
          {
            list: "request.object.spec.containers",
            preconditions: { all: [{ key: "{{ element.image }}", operator: "Equals", value: "*:latest" }] },
            patchesJson6902: "- op: add\n  path: /spec/containers/{{elementIndex}}/imagePullPolicy\n  value: Always\n",
          },
        ],
      },
    };
    const out = mutate([rule], p).patchedResource?.["spec"] as JsonObject;
    assert.deepEqual(
      (out["containers"] as JsonObject[]).map((c) => c["imagePullPolicy"] ?? "-"),
      ["Always", "-", "Always"],
    );
  });

  test("a foreach none of whose entries changed the resource is Kyverno's skip '0 elements processed'", () => {
    const rule = (lists: string[]): JsonObject => ({
      name: "pull",
      match: matchPods,
      mutate: {
        foreach: lists.map((list) => ({
          list,
          preconditions: { all: [{ key: "{{ element.image }}", operator: "Equals", value: "*:latest" }] },
          patchesJson6902: "- op: add\n  path: /spec/containers/{{elementIndex}}/imagePullPolicy\n  value: Always\n",
        })),
      },
    });
    const pinned = pod({ name: "web", containers: [{ name: "a", image: "a:1" }] });
    const input = { ...pinned, spec: { ...(pinned["spec"] as JsonObject), initContainers: [] } };
    const none = mutate([rule(["request.object.spec.containers", "request.object.spec.initContainers"])], input);
    assert.deepEqual(
      none.rules.map((r) => [r.status, r.message]),
      [["skip", "0 elements processed"]],
    );
    assert.equal(none.patchedResource, input, "untouched");
    const latest = pod({ name: "web", containers: [{ name: "a", image: "a:latest" }] });
    const one = mutate([rule(["request.object.spec.containers"])], latest);
    assert.deepEqual(
      one.rules.map((r) => [r.status, r.message]),
      [["pass", "mutated Pod/web in namespace default"]],
    );
  });

  test("autogen: a Pod overlay also patches Deployments' pod templates", () => {
    const r = mutate([labelRule("team", { metadata: { labels: { "+(team)": "bravo" } } })], deployment("api"));
    assert.equal(r.rules[0]?.rule, "autogen-team");
    const template = ((r.patchedResource?.["spec"] as JsonObject)["template"] as JsonObject)["metadata"] as JsonObject;
    assert.deepEqual(template["labels"], { team: "bravo" });
  });

  test("applyRules One stops after the first rule that mutated", () => {
    const doc = clusterPolicy(
      "p",
      [labelRule("a", { metadata: { labels: { a: "1" } } }), labelRule("b", { metadata: { labels: { b: "1" } } })],
      { applyRules: "One" },
    );
    const r = engine.mutate(compile(doc), request(pod({ name: "x" })));
    assert.deepEqual(
      r.rules.map((x) => x.rule),
      ["a"],
    );
  });

  test("DELETE requests are not mutated", () => {
    const r = mutate(
      [labelRule("team", { metadata: { labels: { team: "x" } } })],
      {},
      { operation: "DELETE", oldResource: pod({ name: "gone" }) },
    );
    assert.deepEqual(r.rules, []);
  });
});

describe("mutate existing resources (mutate.targets)", () => {
  const cm = (name: string, data: JsonObject): JsonObject => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "apps" },
    data,
  });
  const store = (items: JsonObject[]): ExistingResources => ({
    get: (_a, kind, ns, name) =>
      ok(
        items.find(
          (i) =>
            i["kind"] === kind &&
            (i["metadata"] as JsonObject)["namespace"] === ns &&
            (i["metadata"] as JsonObject)["name"] === name,
        ),
      ),
    list: (_a, kind, ns) =>
      ok(items.filter((i) => i["kind"] === kind && (i["metadata"] as JsonObject)["namespace"] === ns)),
  });
  const rule: JsonObject = {
    name: "stamp",
    match: { any: [{ resources: { kinds: ["Secret"] } }] },
    mutate: {
      targets: [
        { apiVersion: "v1", kind: "ConfigMap", namespace: "{{ request.object.metadata.namespace }}", name: "conf-*" },
      ],
      patchStrategicMerge: {
        metadata: {
          annotations: {
            "secret-version": "{{ request.object.metadata.resourceVersion }}",
            was: "{{ target.data.mode }}",
          },
        },
      },
    },
  };
  const secret: JsonObject = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s", namespace: "apps", resourceVersion: "42" },
  };

  test("each selected target is patched, with `target` in scope; others are left alone", () => {
    const r = mutate(
      [rule],
      secret,
      {},
      store([cm("conf-a", { mode: "x" }), cm("conf-b", { mode: "y" }), cm("other", {})]),
    );
    assert.deepEqual(
      r.rules.map((x) => [x.status, (x.patchedTarget?.["metadata"] as JsonObject)["name"]]),
      [
        ["pass", "conf-a"],
        ["pass", "conf-b"],
      ],
    );
    assert.deepEqual((r.rules[1]?.patchedTarget?.["metadata"] as JsonObject)["annotations"], {
      "secret-version": "42",
      was: "y",
    });
    assert.equal(r.patchedResource, secret);
  });

  test("a target's selector picks the objects with its labels (the port may list every object of the kind)", () => {
    const bySelector: JsonObject = {
      ...rule,
      mutate: {
        targets: [
          { apiVersion: "v1", kind: "ConfigMap", namespace: "apps", selector: { matchLabels: { pick: "yes" } } },
        ],
        patchStrategicMerge: { metadata: { labels: { stamped: "true" } } },
      },
    };
    const labelled = (name: string, pick: string): JsonObject => ({
      ...cm(name, {}),
      metadata: { name, namespace: "apps", labels: { pick } },
    });
    const r = mutate([bySelector], secret, {}, store([labelled("a", "yes"), labelled("b", "no"), cm("c", {})]));
    assert.deepEqual(
      r.rules.map((x) => [x.status, (x.patchedTarget?.["metadata"] as JsonObject)["name"]]),
      [["pass", "a"]],
    );
  });

  test("no targets found is a skip; no existing resources given is an error that says how to give them", () => {
    assert.equal(mutate([rule], secret, {}, store([])).rules[0]?.status, "skip");
    const e = mutate([rule], secret).rules[0];
    assert.equal(e?.status, "error");
    assert.match(e?.message ?? "", /--target-resource/);
  });
});

describe("mutateAll: the net change as one JSON patch", () => {
  test("the patch turns the request's object into the patched resource, across policies", () => {
    const p1 = compile(clusterPolicy("p1", [labelRule("team", { metadata: { labels: { "+(team)": "bravo" } } })]));
    const p2 = compile(
      clusterPolicy("p2", [labelRule("side", { spec: { containers: [{ name: "side", image: "s:1" }] } })]),
    );
    const input = pod({ name: "web", labels: { "app.kubernetes.io/name": "web" } });
    const out = engine.mutateAll([p1, p2], request(input));
    assert.equal(out.responses.length, 2);
    const applied = applyJsonPatch(input, out.patch);
    assert.ok(applied.ok);
    if (applied.ok) assert.deepEqual(applied.value, out.patched);
    assert.ok(
      out.patch.some((op) => op.op === "add" && op.path === "/spec/containers/0"),
      JSON.stringify(out.patch),
    );
  });

  test("a policy that patches nothing passes the object on; the next one matches and reads what the one before it patched", () => {
    const noOp = compile(
      clusterPolicy("no-op", [
        {
          name: "other-pods",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          preconditions: { all: [{ key: "{{ request.object.metadata.name }}", operator: "Equals", value: "other" }] },
          mutate: { patchStrategicMerge: { metadata: { labels: { x: "1" } } } },
        },
      ]),
    );
    const setTier = compile(clusterPolicy("set-tier", [labelRule("tier", { metadata: { labels: { tier: "web" } } })]));
    const onlyWeb = compile(
      clusterPolicy("only-web", [
        {
          name: "mark-web",
          match: { any: [{ resources: { kinds: ["Pod"], selector: { matchLabels: { tier: "web" } } } }] },
          mutate: {
            patchStrategicMerge: { metadata: { annotations: { web: "{{ request.object.metadata.labels.tier }}" } } },
          },
        },
      ]),
    );
    const out = engine.mutateAll([noOp, onlyWeb, setTier, noOp, onlyWeb], request(pod({ name: "web" })));
    const metadata = out.patched["metadata"] as JsonObject;
    assert.deepEqual(metadata["labels"], { tier: "web" });
    assert.deepEqual(metadata["annotations"], { web: "web" });
    assert.deepEqual(out.responses.map((r) => r.rules.map((x) => `${r.policy.name}/${x.rule}: ${x.status}`)).flat(), [
      "no-op/other-pods: skip",
      "set-tier/tier: pass",
      "no-op/other-pods: skip",
      "only-web/mark-web: pass",
    ]);
  });

  test("no change, no patch", () => {
    const p = compile(clusterPolicy("p", [labelRule("team", { metadata: { labels: { "+(team)": "bravo" } } })]));
    assert.deepEqual(engine.mutateAll([p], request(pod({ name: "x", labels: { team: "a" } }))).patch, []);
  });
});
