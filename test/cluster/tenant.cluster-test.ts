/**
 * Issue 22 §6, the tenant suite, end to end (`npm run test:cluster`) against
 * `scripts/cluster.sh up DIR --with-bylaw`: Bylaw runs as the ServiceAccount deploy/ ships. A user
 * `tenant-a-admin` (kubectl --as) who may only administer tenant-a (ClusterRole admin bound there)
 * and write kyverno.io Policies there tries to make Bylaw read canary ConfigMaps and Secrets in
 * tenant-b and kube-system, or create a webhook configuration:
 * - apiCall paths (cross-namespace, cluster-scoped, `..`, encoded `/` `.` `%`, malformed escapes,
 *   `?`, `#`), configMap entries, globalReference, service calls (a recording listener on loopback,
 *   the metadata address), POST apiCall, generate/clone: refused at `kubectl apply` with the reason;
 * - the same with the namespace or path from the request object: a rule error at review time;
 * - afterwards no canary value is in any response, Event, PolicyReport or Bylaw's log, and the
 *   listener saw no request at all;
 * - a Policy whose context doubles a string 30 times is a rule error within the deadline while
 *   reviews in another namespace keep being answered, and the server stays up and ready.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  eventually,
  kubectlOk,
  processRunning,
  readPids,
  run,
  startCluster,
  started,
  tearDown,
  type Cluster,
  type RunResult,
} from "./cluster-harness.js";
import { canaryLeaks, placesToSearch } from "./canary-leaks.js";
import { BYSTANDER_POLICY, COST_POLICY, RUNTIME_POLICY, staticAttempts } from "./tenant-policies.js";

const buildTimeoutMs = 90 * 60_000;
const TENANT = ["--as", "tenant-a-admin"];
let cluster: Cluster | undefined;
let listener: Server | undefined;
let listenerPort = 0;
let bylawPort = "";
const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
/** Every kubectl output the tenant got: no canary may appear in any. */
const responses: string[] = [];
const canaries = {
  configMapB: `canary-cm-b-${randomBytes(12).toString("hex")}`,
  secretB: `canary-secret-b-${randomBytes(12).toString("hex")}`,
  configMapKs: `canary-cm-ks-${randomBytes(12).toString("hex")}`,
  secretKs: `canary-secret-ks-${randomBytes(12).toString("hex")}`,
};
const own = `own-${randomBytes(8).toString("hex")}`;

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);
async function asTenant(args: readonly string[], input?: string): Promise<RunResult> {
  const r = await current().kubectl([...TENANT, ...args], input);
  responses.push(r.stdout, r.stderr);
  return r;
}

function configMap(
  name: string,
  labels: Record<string, string>,
  annotations: Record<string, string> = {},
  namespace = "tenant-a",
): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels, annotations },
    data: { a: "b" },
  });
}

const RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: tenant-a-admin, namespace: tenant-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: tenant-a-admin}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: policy-author, namespace: tenant-a}
rules: [{apiGroups: [kyverno.io], resources: [policies], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: policy-author, namespace: tenant-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: policy-author}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: tenant-a-admin}]
`;

async function registeredForConfigMaps(): Promise<true | undefined> {
  const json = JSON.parse(
    await ok(["get", "validatingwebhookconfiguration", "bylaw-resource-validating-webhook-cfg", "-o", "json"]),
  ) as { webhooks?: { rules: { resources: string[] }[] }[] };
  return json.webhooks?.some((w) => w.rules.some((r) => r.resources.includes("configmaps"))) ? true : undefined;
}

/** GET /health/readiness: whether it answered 200, and its body (the reasons). */
async function readyz(): Promise<{ ok: boolean; body: string }> {
  const r = await run(
    "curl",
    ["-sk", "--max-time", "2", "-w", "\\n%{http_code}", `https://127.0.0.1:${bylawPort}/health/readiness`],
    5_000,
  );
  return { ok: r.stdout.endsWith("\n200"), body: r.stdout };
}

describe("a tenant cannot borrow Bylaw's ServiceAccount", { timeout: buildTimeoutMs + 15 * 60_000 }, () => {
  before(async () => {
    listener = createServer((req, res) => {
      seen.push({ url: req.url ?? "", headers: req.headers });
      res.end('{"allowed": true}');
    });
    await new Promise<void>((r) => listener?.listen(0, "127.0.0.1", r));
    listenerPort = (listener.address() as AddressInfo).port;
    cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
    console.log(`# scripts/cluster.sh up --with-bylaw took ${cluster.upSeconds.toFixed(1)} s`);
    bylawPort = /BYLAW_PORT=(\d+)/.exec(readFileSync(join(cluster.dir, "bylaw.env"), "utf8"))?.[1] ?? "";
    for (const ns of ["tenant-a", "tenant-b", "bystander"]) await ok(["create", "namespace", ns]);
    for (const [ns, cm, secret] of [
      ["tenant-b", canaries.configMapB, canaries.secretB],
      ["kube-system", canaries.configMapKs, canaries.secretKs],
    ] as const) {
      await ok(["create", "configmap", "canary", "-n", ns, `--from-literal=value=${cm}`]);
      await ok(["create", "secret", "generic", "canary", "-n", ns, `--from-literal=value=${secret}`]);
    }
    await ok(["create", "configmap", "canary", "-n", "tenant-a", `--from-literal=value=${own}`]);
    await ok(["apply", "-f", "-"], RBAC);
    await ok(["apply", "-f", "-"], BYSTANDER_POLICY);
    await eventually("the webhook for ConfigMaps", 60_000, registeredForConfigMaps);
  });

  after(async () => {
    await new Promise((r) => (listener === undefined ? r(undefined) : listener.close(r)));
    await tearDown(cluster);
  });

  test("the tenant may administer tenant-a and write Policies there, and nothing else", async () => {
    assert.equal(
      (await asTenant(["auth", "can-i", "create", "policies.kyverno.io", "-n", "tenant-a"])).stdout.trim(),
      "yes",
    );
    assert.equal((await asTenant(["auth", "can-i", "get", "secrets", "-n", "tenant-a"])).stdout.trim(), "yes");
    for (const args of [
      ["get", "secrets", "-n", "tenant-b"],
      ["get", "configmaps", "-n", "kube-system"],
      ["create", "validatingwebhookconfigurations"],
      ["create", "policies.kyverno.io", "-n", "tenant-b"],
    ]) {
      assert.equal((await asTenant(["auth", "can-i", ...args])).stdout.trim(), "no", args.join(" "));
    }
  });

  test("every attempt the policy-validating webhook can see is refused at kubectl apply, with the reason", async () => {
    const failures: string[] = [];
    for (const attempt of staticAttempts(listenerPort)) {
      const r = await asTenant(["apply", "-f", "-"], attempt.policy);
      if (r.code === 0) failures.push(`${attempt.what}: stored (${r.stdout.trim()})`);
      else if (!/validate-policy\.bylaw\.svc" denied the request/.test(r.stderr) || !attempt.reason.test(r.stderr))
        failures.push(`${attempt.what}: refused for another reason: ${r.stderr.trim()}`);
    }
    assert.deepEqual(failures, []);
    const stored = await ok(["get", "policies.kyverno.io", "-n", "tenant-a", "-o", "name"]);
    assert.equal(stored.trim(), "", "no attempt was stored");
  });

  test("a namespace or path from the request object is a rule error at review time; the policy works in its own namespace", async () => {
    const applied = await asTenant(["apply", "-f", "-"], RUNTIME_POLICY);
    assert.equal(applied.code, 0, `the policy with variables was refused: ${applied.stderr}`);
    await eventually("by-variables Ready", 30_000, async () =>
      (await ok([
        "get",
        "pol",
        "-n",
        "tenant-a",
        "by-variables",
        "-o",
        'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
      ])) === "True"
        ? true
        : undefined,
    );
    // The control: its own namespace's ConfigMap is read, and the deny echoes it.
    const control = await eventually("the policy to be served", 30_000, async () => {
      const r = await asTenant(["create", "-f", "-"], configMap("control", { attack: "ns", target: "tenant-a" }));
      return r.code !== 0 && r.stderr.includes(own) ? r : undefined;
    });
    assert.match(control.stderr, /by-variables/);
    // Secrets in its own namespace: Bylaw's ServiceAccount may not list Secrets, so a rule error;
    // the cache that cannot sync does not take the server out of its Service (readiness stays ok).
    const ownSecret = await asTenant(
      ["create", "-f", "-"],
      configMap("own-secret", { attack: "secret", target: "tenant-a" }),
    );
    assert.notEqual(ownSecret.code, 0);
    assert.match(ownSecret.stderr, /secret: '.*failed to fetch data for APICall: .*secrets is forbidden/);
    const ready = await readyz();
    assert.equal(ready.ok, true, `a tenant's Secrets apiCall made Bylaw unready: ${ready.body}`);
    const attempts: [string, string][] = [
      [configMap("ns-b", { attack: "ns", target: "tenant-b" }), 'may not read namespace "tenant-b"'],
      [configMap("ns-ks", { attack: "ns", target: "kube-system" }), 'may not read namespace "kube-system"'],
      [configMap("secret-b", { attack: "secret", target: "tenant-b" }), 'may not read namespace "tenant-b"'],
      [configMap("secret-ks", { attack: "secret", target: "kube-system" }), 'may not read namespace "kube-system"'],
      [configMap("tail-dots", { attack: "tail" }, { tail: "../../tenant-b/configmaps/canary" }), "dot-segments"],
      [
        configMap("tail-enc-slash", { attack: "tail" }, { tail: "..%2F..%2Ftenant-b%2Fconfigmaps%2Fcanary" }),
        "encoded byte %2F",
      ],
      [
        configMap("tail-enc-dot", { attack: "tail" }, { tail: "%2E%2E/%2E%2E/tenant-b/configmaps/canary" }),
        "encoded byte %2E",
      ],
      [
        configMap("tail-enc-pct", { attack: "tail" }, { tail: "%252E%252E%252F%252E%252E%252Ftenant-b" }),
        "encoded byte %25",
      ],
      [
        configMap("tail-malformed", { attack: "tail" }, { tail: "%zz/../../tenant-b/configmaps/canary" }),
        "malformed percent-escape",
      ],
      [configMap("tail-query", { attack: "tail" }, { tail: "x?/../../tenant-b/configmaps/canary" }), "query strings"],
      [configMap("tail-fragment", { attack: "tail" }, { tail: "x#/../../tenant-b/configmaps/canary" }), "fragments"],
      [
        configMap("path-secret", { attack: "path" }, { path: "/api/v1/namespaces/kube-system/secrets/canary" }),
        'may not read namespace "kube-system"',
      ],
      [
        configMap(
          "path-webhooks",
          { attack: "path" },
          { path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations" },
        ),
        "is not namespaced",
      ],
      [
        configMap("cm-b", { attack: "cm", target: "tenant-b" }),
        'configMap namespace "tenant-b" is different from policy namespace "tenant-a"',
      ],
      [
        configMap("cm-ks", { attack: "cm", target: "kube-system" }),
        'configMap namespace "kube-system" is different from policy namespace "tenant-a"',
      ],
    ];
    const failures: string[] = [];
    for (const [object, reason] of attempts) {
      const name = (JSON.parse(object) as { metadata: { name: string } }).metadata.name;
      const r = await asTenant(["create", "-f", "-"], object);
      if (r.code === 0) failures.push(`${name}: admitted`);
      else if (!r.stderr.includes(reason)) failures.push(`${name}: refused without "${reason}": ${r.stderr.trim()}`);
      const there = await current().kubectl(["get", "configmap", "-n", "tenant-a", name]);
      if (there.code === 0) failures.push(`${name}: the ConfigMap exists`);
    }
    assert.deepEqual(failures, []);
  });

  test("no canary value appears in any response, Event, PolicyReport or Bylaw's log; the listener saw nothing and no webhook configuration was created", async () => {
    const places = await placesToSearch(current(), responses);
    const leaks = canaryLeaks(canaries, places);
    assert.deepEqual(leaks, []);
    assert.ok(places[0]?.[1].includes(own), "the grep reads what the tenant got (its own ConfigMap's value is there)");
    assert.deepEqual(seen, [], "the recording listener was called");
    const hooks = await ok(["get", "validatingwebhookconfigurations,mutatingwebhookconfigurations", "-o", "name"]);
    assert.doesNotMatch(hooks, /tenant-a/);
  });

  test("a context that doubles a string 30 times is a rule error within the deadline; other reviews are answered and the server stays up", async () => {
    const applied = await asTenant(["apply", "-f", "-"], COST_POLICY);
    assert.equal(applied.code, 0, `the doubling policy was refused: ${applied.stderr}`);
    await eventually("doubling Ready", 30_000, async () =>
      (await ok([
        "get",
        "pol",
        "-n",
        "tenant-a",
        "doubling",
        "-o",
        'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
      ])) === "True"
        ? true
        : undefined,
    );
    const pid = readPids(current().dir).get("bylaw");
    assert.ok(pid !== undefined && processRunning(pid), "Bylaw runs");
    for (const rule of ["subst", "join"]) {
      let done = false;
      const attack = (async () => {
        const startedAt = performance.now();
        const r = await asTenant(["create", "-f", "-"], configMap(`cost-${rule}`, { attack: `cost-${rule}` }));
        done = true;
        return { r, seconds: (performance.now() - startedAt) / 1000 };
      })();
      const bystander: number[] = [];
      for (let i = 0; i < 40 && (!done || bystander.length < 3); i++) {
        const t = performance.now();
        await ok(["create", "-f", "-"], configMap(`${rule}-${i}`, { team: "x" }, {}, "bystander"));
        bystander.push((performance.now() - t) / 1000);
      }
      const { r, seconds } = await attack;
      console.log(
        `# ${rule} doubling: refused after ${seconds.toFixed(2)} s; ${bystander.length} bystander reviews, slowest ${Math.max(...bystander).toFixed(2)} s`,
      );
      assert.notEqual(r.code, 0, `the doubling ConfigMap (${rule}) was admitted`);
      assert.match(r.stderr, new RegExp(`doubling:\\s+${rule}: `));
      assert.match(r.stderr, /\(2 MiB?, Kyverno''?s context size limit\)/);
      assert.ok(seconds < 10, `refused after ${seconds} s, past the 10 s webhook timeout`);
      for (const s of bystander) assert.ok(s < 10, `a bystander review took ${s} s`);
      assert.ok(processRunning(pid), "Bylaw is still running");
      const ready = await readyz();
      assert.ok(ready.ok, `Bylaw is not ready: ${ready.body}`);
    }
    const after = await current().kubectl(["create", "-f", "-"], configMap("after", {}, {}, "bystander"));
    assert.match(after.stderr, /label team is required/, "the server still decides");
  });
});
