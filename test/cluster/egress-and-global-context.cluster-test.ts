/**
 * Issue 22 sections 3 and 6, end to end (`npm run test:cluster`), `bylaw serve --kubeconfig` against
 * the real API server, reviews sent to /validate/fail over HTTPS:
 * - a ClusterPolicy whose apiCall POSTs a SubjectAccessReview decides on live RBAC (a RoleBinding
 *   created during the test changes the answer);
 * - a ClusterPolicy with a service call to a recording listener on loopback: without
 *   `--egress-allow` it is a rule error and the listener sees nothing; with `--egress-allow
 *   127.0.0.0/8` it is answered, and the listener never sees an Authorization header;
 * - a GlobalContextEntry of Pods (kubernetesResource) follows Pods created, its projection works,
 *   and its status is written back Ready (reason Succeeded); an apiCall entry (urlPath, refreshed
 *   every second) follows a Pod created through its projection, with lastRefreshTime;
 * - a deleted entry is Kyverno's rule error `failed to fetch entry key=<name>`.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  crdsEstablished,
  eventually,
  startCluster,
  stopCluster,
  type Cluster,
  kubectlOk as kubectlIn,
  started,
} from "./cluster-harness.js";
import { createReview, decide, startServe, type ServeProcess } from "./serve-process.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
let strict: ServeProcess | undefined;
let allowing: ServeProcess | undefined;
let listener: Server | undefined;
let policyDir = "";
const seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];

const kubectlOk = (args: readonly string[], input?: string): Promise<string> =>
  kubectlIn(started(cluster), args, input);
const serveOf = (s: ServeProcess | undefined): ServeProcess => {
  if (s === undefined) throw new Error("bylaw serve did not start");
  return s;
};
const pod = (namespace: string, name: string, username: string) =>
  createReview(
    {
      kind: "Pod",
      metadata: { name, namespace },
      spec: { containers: [{ name: "c", image: "registry.invalid/app:1" }] },
    },
    { username, groups: ["system:authenticated"] },
  );

function policies(listenerPort: number): Record<string, string> {
  return {
    "sar.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: may-create-secrets}
spec:
  validationFailureAction: Enforce
  background: false
  failurePolicy: Fail
  rules:
    - name: check-sar
      match: {any: [{resources: {kinds: [Pod], namespaces: [sar]}}]}
      context:
        - name: allowed
          apiCall:
            urlPath: /apis/authorization.k8s.io/v1/subjectaccessreviews
            method: POST
            data:
              - {key: apiVersion, value: authorization.k8s.io/v1}
              - {key: kind, value: SubjectAccessReview}
              - key: spec
                value: {user: "{{ request.userInfo.username }}", resourceAttributes: {verb: create, resource: secrets, namespace: "{{ request.namespace }}"}}
            jmesPath: status.allowed
      validate:
        message: "{{ request.userInfo.username }} may not create Secrets in {{ request.namespace }}"
        deny: {conditions: {any: [{key: "{{ allowed }}", operator: Equals, value: false}]}}
`,
    "service.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: ask-a-service}
spec:
  validationFailureAction: Enforce
  background: false
  failurePolicy: Fail
  rules:
    - name: ask
      match: {any: [{resources: {kinds: [Pod], namespaces: [svc]}}]}
      context:
        - name: verdict
          apiCall:
            method: POST
            service:
              url: http://127.0.0.1:${listenerPort}/verdict
              headers: [{key: X-Asked-By, value: bylaw-test}]
            data: [{key: name, value: "{{ request.object.metadata.name }}"}]
            jmesPath: allowed
      validate:
        message: "the service refused {{ request.object.metadata.name }}"
        deny: {conditions: {any: [{key: "{{ verdict }}", operator: NotEquals, value: true}]}}
`,
    "global.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: at-most-two-pods}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: count
      match: {any: [{resources: {kinds: [Pod], namespaces: [gce]}}]}
      context:
        - {name: count, globalReference: {name: gce-pods, jmesPath: "length(@)"}}
        - {name: names, globalReference: {name: gce-pods.names}}
      validate:
        message: "gce already has {{ count }} Pods: {{ join(',', names) }}"
        deny: {conditions: {any: [{key: "{{ count }}", operator: GreaterThanOrEquals, value: 2}]}}
`,
    "global-call.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: at-most-three-pods-by-call}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: count
      match: {any: [{resources: {kinds: [Pod], namespaces: [gce-call]}}]}
      context:
        - {name: count, globalReference: {name: gce-call-pods.count}}
      validate:
        message: "gce-call had {{ count }} Pods at the last refresh"
        deny: {conditions: {any: [{key: "{{ count }}", operator: GreaterThanOrEquals, value: 1}]}}
`,
  };
}

describe(
  "apiCall POST, service calls through the egress filter, and GlobalContextEntries against a real API server",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(
      async () => {
        listener = createServer((req, res) => {
          let body = "";
          req.on("data", (c: Buffer) => (body += c.toString("utf8")));
          req.on("end", () => {
            seen.push({ url: req.url ?? "", headers: req.headers, body });
            const name = (JSON.parse(body === "" ? "{}" : body) as { name?: string }).name ?? "";
            res
              .writeHead(200, { "content-type": "application/json" })
              .end(JSON.stringify({ allowed: name.startsWith("ok-") }));
          });
        });
        await new Promise<void>((r) => listener?.listen(0, "127.0.0.1", r));
        const listenerPort = (listener.address() as AddressInfo).port;
        cluster = await startCluster(buildTimeoutMs);
        console.log(`# scripts/cluster.sh up took ${cluster.upSeconds.toFixed(1)} s`);
        for (const ns of ["sar", "svc", "gce", "gce-call"]) await kubectlOk(["create", "namespace", ns]);
        await kubectlOk(
          ["apply", "-f", "-"],
          readFileSync(join(repoRoot, "deploy", "crds", "kyverno.io_globalcontextentries.yaml"), "utf8"),
        );
        await crdsEstablished(cluster, ["crd/globalcontextentries.kyverno.io"]);
        await kubectlOk(["create", "role", "secret-writer", "-n", "sar", "--verb=create", "--resource=secrets"]);
        await kubectlOk(["create", "rolebinding", "alice-writes", "-n", "sar", "--role=secret-writer", "--user=alice"]);
        await kubectlOk(
          ["apply", "-f", "-"],
          `apiVersion: kyverno.io/v2alpha1
kind: GlobalContextEntry
metadata: {name: gce-pods}
spec:
  kubernetesResource: {version: v1, resource: pods, namespace: gce}
  projections: [{name: names, jmesPath: "[].metadata.name"}]
---
apiVersion: kyverno.io/v2alpha1
kind: GlobalContextEntry
metadata: {name: gce-call-pods}
spec:
  apiCall: {urlPath: /api/v1/namespaces/gce-call/pods, refreshInterval: 1s}
  projections: [{name: count, jmesPath: "length(items)"}]
`,
        );
        policyDir = mkdtempSync(join(tmpdir(), "bylaw-egress-policies-"));
        for (const [file, text] of Object.entries(policies(listenerPort))) writeFileSync(join(policyDir, file), text);
        strict = await startServe(["--policies", policyDir, "--kubeconfig", cluster.kubeconfig]);
        allowing = await startServe([
          "--policies",
          policyDir,
          "--kubeconfig",
          cluster.kubeconfig,
          "--egress-allow",
          "127.0.0.0/8",
        ]);
        for (const s of [strict, allowing])
          await eventually("readiness", 60_000, async () =>
            (await s.get("/health/readiness")).status === 200 ? true : undefined,
          );
      },
      { timeout: buildTimeoutMs + 180_000 },
    );

    after(async () => {
      for (const s of [strict, allowing]) {
        const code = await s?.stop();
        if (s !== undefined) assert.equal(code, 0, `bylaw serve exit code; output:\n${s.output()}`);
      }
      await new Promise<void>((r) => (listener === undefined ? r() : listener.close(() => r())));
      if (policyDir !== "") rmSync(policyDir, { recursive: true, force: true });
      if (cluster === undefined) return;
      const down = await stopCluster(cluster.dir);
      assert.equal(down.code, 0, `scripts/cluster.sh down failed: ${down.stderr}`);
      rmSync(cluster.dir, { recursive: true, force: true });
    });

    test("an apiCall POST of a SubjectAccessReview decides on live RBAC", async () => {
      assert.equal(
        (await decide(serveOf(strict), pod("sar", "p1", "alice"))).allowed,
        true,
        "alice may create Secrets in sar",
      );
      const bob = await decide(serveOf(strict), pod("sar", "p2", "bob"));
      assert.equal(bob.allowed, false);
      assert.match(bob.message, /may-create-secrets/);
      assert.match(bob.message, /bob may not create Secrets in sar/);
      await kubectlOk(["create", "rolebinding", "bob-writes", "-n", "sar", "--role=secret-writer", "--user=bob"]);
      await eventually("bob allowed once bound", 30_000, async () =>
        (await decide(serveOf(strict), pod("sar", "p3", "bob"))).allowed ? true : undefined,
      );
    });

    test("a service call to loopback is refused without --egress-allow: a rule error, and the listener sees nothing", async () => {
      const before = seen.length;
      const d = await decide(serveOf(strict), pod("svc", "ok-1", "alice"));
      assert.equal(d.allowed, false);
      assert.match(d.message, /ask-a-service/);
      assert.match(d.message, /refused for policy-controlled calls unless the operator allows it \(--egress-allow\)/);
      assert.equal(seen.length, before, "the listener saw no request");
    });

    test("with --egress-allow 127.0.0.0/8 the service answers, once per review, and never sees an Authorization header", async () => {
      const before = seen.length;
      assert.equal((await decide(serveOf(allowing), pod("svc", "ok-2", "alice"))).allowed, true);
      const refused = await decide(serveOf(allowing), pod("svc", "bad-1", "alice"));
      assert.equal(refused.allowed, false);
      assert.match(refused.message, /the service refused bad-1/);
      const calls = seen.slice(before);
      assert.equal(calls.length, 2, "one call per review");
      for (const c of calls) {
        assert.equal(c.headers["authorization"], undefined);
        assert.equal(c.headers["x-asked-by"], "bylaw-test");
        assert.equal(c.url, "/verdict");
      }
      assert.deepEqual(
        calls.map((c) => JSON.parse(c.body) as unknown),
        [{ name: "ok-2" }, { name: "bad-1" }],
      );
    });

    test("a GlobalContextEntry of Pods follows changes; its projection works; its status says Ready", async () => {
      assert.equal((await decide(serveOf(strict), pod("gce", "new", "alice"))).allowed, true, "no Pods yet");
      await kubectlOk(["run", "first", "-n", "gce", "--image=registry.invalid/app:1"]);
      await kubectlOk(["run", "second", "-n", "gce", "--image=registry.invalid/app:1"]);
      const denied = await eventually("denied once two Pods exist", 30_000, async () => {
        const d = await decide(serveOf(strict), pod("gce", "new", "alice"));
        return d.allowed ? undefined : d.message;
      });
      assert.match(denied, /gce already has 2 Pods: first,second/);
      let last = "";
      const reason = await eventually("the entry's status", 30_000, async () => {
        const r = await kubectlOk([
          "get",
          "globalcontextentries.kyverno.io",
          "gce-pods",
          "-o",
          "jsonpath={.status.conditions[0].type}/{.status.conditions[0].status}/{.status.conditions[0].reason}",
        ]);
        last = r;
        return r === "Ready/True/Succeeded" ? r : undefined;
      }).catch((e: unknown) => {
        throw new Error(
          `${String(e)}; status ${JSON.stringify(last)}; bylaw serve's log:\n${serveOf(strict).output().slice(-4000)}`,
        );
      });
      assert.equal(reason, "Ready/True/Succeeded");
    });

    test("an apiCall GlobalContextEntry is refreshed on its interval; its projection is read; its status has lastRefreshTime", async () => {
      assert.equal(
        (await decide(serveOf(strict), pod("gce-call", "new", "alice"))).allowed,
        true,
        "no Pods at the first refresh",
      );
      await kubectlOk(["run", "only", "-n", "gce-call", "--image=registry.invalid/app:1"]);
      const denied = await eventually("denied after a refresh sees the Pod", 30_000, async () => {
        const d = await decide(serveOf(strict), pod("gce-call", "new", "alice"));
        return d.allowed ? undefined : d.message;
      });
      assert.match(denied, /gce-call had 1 Pods at the last refresh/);
      const status = await kubectlOk([
        "get",
        "globalcontextentries.kyverno.io",
        "gce-call-pods",
        "-o",
        "jsonpath={.status.conditions[0].reason}/{.status.lastRefreshTime}",
      ]);
      assert.match(status, /^Succeeded\/\d{4}-\d\d-\d\dT/);
    });

    test("an unknown entry is a rule error with Kyverno's text", async () => {
      await kubectlOk(["delete", "globalcontextentries.kyverno.io", "gce-pods"]);
      const d = await eventually("an error once the entry is gone", 30_000, async () => {
        const r = await decide(serveOf(strict), pod("gce", "new", "alice"));
        return /failed to fetch entry key=gce-pods/.test(r.message) ? r : undefined;
      });
      assert.equal(d.allowed, false, "a rule error under failurePolicy Fail (the default) denies");
      assert.match(d.message, /at-most-two-pods/);
    });
  },
);
