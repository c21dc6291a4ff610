/**
 * The real kube-apiserver as the oracle for MutatingAdmissionPolicy (`npm run test:cluster`): no
 * Bylaw in the cluster. Policies and bindings are created with kubectl; each ConfigMap is sent with
 * `kubectl create --dry-run=server -o json`, and the API server's answer (the object it would store,
 * or its refusal) is compared with `bylaw apply` on the same policies and object (`-o FILE` for the
 * patched object, `--output-format json` for the rows). Each policy acts on the ConfigMaps whose
 * name starts with its own prefix (a matchCondition), so one object meets one policy.
 *
 * What is compared: JSONPatch as Kubernetes applies it (evanphx/json-patch v4: a parent must exist,
 * replace of an absent key sets it, a failed test drops the patch silently), ApplyConfiguration's
 * merge, and the constructor type-name check ("type mismatch: unexpected type name …").
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { main } from "../../src/cli/main.js";
import { recordingIo } from "../support/fake-io.js";
import {
  eventually,
  kubectlOk as kubectlIn,
  run,
  startCluster,
  stopCluster,
  started,
  type Cluster,
} from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
const current = (): Cluster => started(cluster);
const kubectlOk = (args: readonly string[], input?: string): Promise<string> => kubectlIn(current(), args, input);

/** One policy and its binding, acting on ConfigMaps named `<prefix>-…`. */
function policy(prefix: string, mutation: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: oracle-${prefix}}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  matchConditions:
  - name: mine
    expression: "object.metadata.name.startsWith('${prefix}-')"
  mutations:
  - ${mutation}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: oracle-${prefix}}
spec:
  policyName: oracle-${prefix}
`;
}

const jsonPatch = (expression: string) => `patchType: JSONPatch
    jsonPatch:
      expression: ${JSON.stringify(expression)}`;
const applyConfiguration = (expression: string) => `patchType: ApplyConfiguration
    applyConfiguration:
      expression: ${JSON.stringify(expression)}`;

const POLICIES = [
  policy("label", jsonPatch("[JSONPatch{op: 'add', path: '/metadata/labels/team', value: 'a'}]")),
  policy("nulldata", jsonPatch("[JSONPatch{op: 'add', path: '/data/x/y', value: 'a'}]")),
  policy(
    "guarded",
    jsonPatch(
      "[JSONPatch{op: 'add', path: '/data/seen', value: 'yes'}, JSONPatch{op: 'test', path: '/data/mode', value: 'strict'}]",
    ),
  ),
  policy("replace", jsonPatch("[JSONPatch{op: 'replace', path: '/data/created', value: 'by-replace'}]")),
  policy("remove", jsonPatch("[JSONPatch{op: 'remove', path: '/data/absent'}]")),
  policy("merge", applyConfiguration("Object{metadata: Object.metadata{labels: {'merged': 'yes'}}, data: {'k': 'v'}}")),
  policy("misnamed", applyConfiguration("Object{metadata: Object.metadata{labels: Object.meta{}}}")),
].join("---\n");

const configMap = (name: string, options: { labels?: Record<string, string>; data?: Record<string, string> } = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default", ...(options.labels !== undefined ? { labels: options.labels } : {}) },
  ...(options.data !== undefined ? { data: options.data } : {}),
});

type Answer = { readonly object: Record<string, unknown> } | { readonly refused: string };

async function apiServer(object: Record<string, unknown>): Promise<Answer> {
  const r = await run(
    "kubectl",
    ["--kubeconfig", current().kubeconfig, "create", "--dry-run=server", "-o", "json", "-f", "-"],
    30_000,
    JSON.stringify(object),
  );
  return r.code === 0 ? { object: JSON.parse(r.stdout) as Record<string, unknown> } : { refused: r.stderr.trim() };
}

async function bylaw(dir: string, object: Record<string, unknown>): Promise<Answer> {
  const name = String((object["metadata"] as { name: string }).name);
  const file = join(dir, `${name}.json`);
  const out = join(dir, `${name}-patched.yaml`);
  writeFileSync(file, JSON.stringify(object));
  const io = recordingIo();
  const code = await main(["apply", join(dir, "policies.yaml"), "-r", file, "--output-format", "json", "-o", out], io);
  assert.ok(code === 0 || code === 1, io.stderr.join("\n"));
  const rows = (JSON.parse(io.stdout.join("\n")) as { results: { policy: string; result: string; message: string }[] })
    .results;
  const failed = rows.find((r) => r.result === "error" || r.result === "fail");
  if (failed !== undefined) return { refused: failed.message };
  const patched = existsSync(out) ? (parse(readFileSync(out, "utf8")) as Record<string, unknown> | null) : null;
  return { object: patched ?? object };
}

/** The parts of a ConfigMap a policy may change. */
const content = (o: Record<string, unknown>) => ({
  labels: (o["metadata"] as { labels?: unknown }).labels ?? {},
  data: o["data"] ?? {},
});

describe("MutatingAdmissionPolicy: bylaw apply against the kube-apiserver", { timeout: 20 * 60_000 }, () => {
  let dir = "";
  before(async () => {
    cluster = await startCluster(buildTimeoutMs);
    dir = mkdtempSync(join(tmpdir(), "bylaw-map-oracle-"));
    writeFileSync(join(dir, "policies.yaml"), POLICIES);
    await kubectlOk(["apply", "-f", join(dir, "policies.yaml")]);
    // The API server takes a moment to start applying new policies and bindings.
    await eventually("every binding applied", 60_000, async () => {
      const a = await apiServer(configMap("merge-probe"));
      const b = await apiServer(configMap("label-probe"));
      const merged = "object" in a && (content(a.object).labels as Record<string, unknown>)["merged"] === "yes";
      return merged && "refused" in b ? true : undefined;
    });
  });
  after(async () => {
    if (cluster !== undefined) await stopCluster(cluster.dir);
  });

  const same: [string, Record<string, unknown>][] = [
    ["JSONPatch add below present labels", configMap("label-has", { labels: { app: "x" } })],
    ["JSONPatch whose test fails: the whole patch is dropped", configMap("guarded-loose", { data: { mode: "loose" } })],
    ["JSONPatch whose test holds: the patch applies", configMap("guarded-strict", { data: { mode: "strict" } })],
    ["JSONPatch replace of an absent key sets it", configMap("replace-one", { data: { a: "b" } })],
    ["ApplyConfiguration merges labels and data", configMap("merge-one", { labels: { app: "x" }, data: { a: "b" } })],
  ];
  for (const [name, object] of same) {
    test(`same object: ${name}`, async () => {
      const api = await apiServer(object);
      const got = await bylaw(dir, object);
      assert.ok("object" in api, JSON.stringify(api));
      assert.ok("object" in got, JSON.stringify(got));
      assert.deepEqual(content(got.object), content(api.object));
    });
  }

  const refused: [string, Record<string, unknown>, string][] = [
    [
      "JSONPatch add below absent labels",
      configMap("label-none"),
      'JSON Patch: add operation does not apply: doc is missing path: "/metadata/labels/team": missing value',
    ],
    [
      "JSONPatch add below an absent key",
      configMap("nulldata-one", { data: { a: "b" } }),
      'JSON Patch: add operation does not apply: doc is missing path: "/data/x/y": missing value',
    ],
    [
      "JSONPatch remove of an absent key",
      configMap("remove-one", { data: { a: "b" } }),
      "JSON Patch: error in remove for path: '/data/absent': Unable to remove nonexistent key: absent: missing value",
    ],
    [
      "ApplyConfiguration constructor named off its field path",
      configMap("misnamed-one"),
      'type mismatch: unexpected type name "Object.meta", expected "Object.metadata.labels", which matches field name path from root Object type',
    ],
  ];
  for (const [name, object, reason] of refused) {
    test(`both refuse, for the same reason: ${name}`, async () => {
      const api = await apiServer(object);
      const got = await bylaw(dir, object);
      assert.ok("refused" in api && api.refused.includes(reason), JSON.stringify(api));
      assert.ok("refused" in got && got.refused.includes(reason), JSON.stringify(got));
    });
  }
});
