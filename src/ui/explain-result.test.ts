/** The "why" panel's answer: read with the viewer's token only, evaluated without cluster reads. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine } from "../engine/index.js";
import type { ViewerAnswer, ViewerReads } from "../kube/viewer-reads.js";
import { fakePorts } from "../../test/support/fake-ports.js";
import { explainResult } from "./explain-result.js";

const POLICY = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "require-team" },
  spec: {
    rules: [
      {
        name: "team",
        match: { any: [{ resources: { kinds: ["Pod"], namespaceSelector: { matchLabels: { tier: "prod" } } } }] },
        validate: { message: "team label", pattern: { metadata: { labels: { team: "?*" } } } },
      },
      {
        name: "from-configmap",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        context: [{ name: "teams", configMap: { name: "teams", namespace: "kube-system" } }],
        validate: {
          message: "m",
          deny: { conditions: { any: [{ key: "{{ teams.data.x }}", operator: "Equals", value: "1" }] } },
        },
      },
    ],
  },
};

const POD = { apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "shop" }, spec: { containers: [] } };

/** `full` may read everything below; `no-pods` may not get Pods; `no-ns` may not get Namespaces. */
function reads(calls: string[]): ViewerReads {
  const answers: Readonly<Record<string, unknown>> = {
    "/apis/kyverno.io/v1/clusterpolicies/require-team": POLICY,
    "/api/v1": {
      resources: [
        { name: "pods", kind: "Pod" },
        { name: "pods/log", kind: "Pod" },
      ],
    },
    "/api/v1/namespaces/shop/pods/web": POD,
    "/api/v1/namespaces/shop": { metadata: { name: "shop", labels: { tier: "prod" } } },
  };
  return {
    get(token, path): Promise<ViewerAnswer> {
      calls.push(`${token} ${path}`);
      const body = answers[path];
      if (token === "no-pods" && path.includes("/pods/"))
        return Promise.resolve({ ok: false, status: 403, message: "pods is forbidden" });
      if (token === "no-ns" && path === "/api/v1/namespaces/shop")
        return Promise.resolve({ ok: false, status: 403, message: "namespaces is forbidden" });
      return Promise.resolve(
        body === undefined ? { ok: false, status: 404, message: "not found" } : { ok: true, body },
      );
    },
    close() {},
  };
}

const query = (over: Record<string, string> = {}) =>
  new URLSearchParams({
    policy: "require-team",
    apiVersion: "v1",
    kind: "Pod",
    namespace: "shop",
    name: "web",
    ...over,
  });

function deps(calls: string[]) {
  // The engine has no cluster behind it: a configMap context entry is an error.
  return { reads: reads(calls), engine: createEngine(fakePorts()) };
}

test("a result's why: the clause that matched and the path that failed, read with the viewer's token only", async () => {
  const calls: string[] = [];
  const answer = await explainResult(deps(calls), "full", query());
  assert.ok(answer.ok, JSON.stringify(answer));
  assert.ok(
    calls.every((c) => c.startsWith("full ")),
    calls.join("\n"),
  );
  assert.ok(calls.includes("full /api/v1/namespaces/shop/pods/web"));
  assert.match(
    answer.text,
    /rule team: fail\n {4}match: match\.any\[0\] selected it; no exclude\n {4}failed at \/metadata\/labels\/: found \(absent\)/,
  );
  // Nothing is read with Bylaw's rights: the ConfigMap the rule names is an error, its data never shown.
  assert.match(
    answer.text,
    /rule from-configmap: error\n {4}match: match\.any\[0\] selected it; no exclude\n {4}context teams = \(not loaded: failed to load context entry teams: /,
  );
  assert.ok(answer.notes.some((n) => /context entries that read the cluster are not read/.test(n)));
});

test("a resource the viewer may not get is refused, naming it; nothing is evaluated", async () => {
  const answer = await explainResult(deps([]), "no-pods", query());
  assert.deepEqual(answer, { ok: false, status: 403, error: "Pod shop/web: pods is forbidden" });
});

test("a Namespace the viewer may not read: the panel says its labels were not read, and the selector saw none", async () => {
  const answer = await explainResult(deps([]), "no-ns", query());
  assert.ok(answer.ok);
  assert.ok(
    answer.notes.some((n) => n.startsWith("the labels of namespace shop were not read (namespaces is forbidden)")),
  );
  assert.match(
    answer.text,
    /rule team: not matched: no filter selected it: match\.any\[0\] \(namespaceSelector not met\)/,
  );
});

test("parameters that are not names are refused before any read; an unknown policy or kind is a 404", async () => {
  const calls: string[] = [];
  for (const [field, value] of [
    ["kind", "Pod/../../secrets"],
    ["apiVersion", "v1/../../"],
    ["name", "../x"],
    ["namespace", "Shop"],
  ] as const) {
    const answer = await explainResult(deps(calls), "full", query({ [field]: value }));
    assert.equal(answer.ok ? 200 : answer.status, 400, field);
  }
  assert.deepEqual(calls, []);
  const none = await explainResult(deps([]), "full", query({ policy: "other" }));
  assert.deepEqual(none.ok ? 200 : [none.status, none.error], [404, 'no policy "other" that you may read']);
  const kind = await explainResult(deps([]), "full", query({ kind: "Widget" }));
  assert.deepEqual(kind.ok ? 200 : [kind.status, kind.error], [404, "the API server serves no kind Widget in v1"]);
});
