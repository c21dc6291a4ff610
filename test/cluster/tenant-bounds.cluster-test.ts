/**
 * Issue 32 §7, the policy half of §10 and /metrics authentication, end to end
 * (`npm run test:cluster`) against `scripts/cluster.sh up DIR --with-bylaw`: Bylaw runs with
 * deploy/base's arguments as the ServiceAccount deploy/ ships. The user `tenant-a-admin` (kubectl
 * --as), who administers tenant-a and may write Policies there, or a pod of hers that reaches the
 * webhook port directly (the NetworkPolicy is what stops that in a real cluster), attacks:
 *
 * - What one request may cost (rule: a request is bounded before it is parsed; past the bounds it
 *   is refused with the reason, and costs the other tenants nothing): a 180,000-container Pod review
 *   (its object past the API server's 3 MiB), 7 MiB of `[{},{},…]`, a million values split into
 *   arrays under the entries bound, and 3.6 million levels of nesting, posted straight to the
 *   webhook port, several at once: each is answered 413 naming the bound, unparsed. What the API
 *   server does send is within the bounds: a 60,000-key ConfigMap through it is evaluated (her
 *   policy denies it by its label, or admits it).
 * - Shared policy budgets (rule: a namespace's policies are bounded per namespace; no tenant's
 *   policies stop the cluster's from loading): 250 Policies in tenant-a; the first 100 are served,
 *   the rest Ready False with the reason, and a ClusterPolicy the admin applies afterwards is Ready
 *   and enforced.
 * - /metrics (rule: /metrics names every tenant's namespaces and policies, so only a caller the API
 *   server allows reads it): with `--metrics-auth token`, no token and made-up tokens are refused
 *   401, the tenant's own ServiceAccount token 403, Prometheus' token with get on /metrics is served;
 *   plain HTTP is not spoken.
 *
 * Throughout, Bylaw's process is the same one (until the test that restarts it with
 * --metrics-auth) and a control review in tenant-b is answered correctly within 2 s.
 * Runs alone in `npm run test:cluster` (test/cluster/run.ts): a control review must be answered within 2 s while the tenant attacks.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { request as httpsRequest } from "node:https";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { bylawEnv, eventually, restartBylaw } from "./cluster-harness.js";
import { configMap } from "./hostile-cel-policies.js";
import { repoRoot } from "../deploy/render.js";
import { BUILD_TIMEOUT_MS, TENANT, tenantKit } from "./tenant-attack.js";

const MIB = 1024 * 1024;
const kit = tenantKit();
const { current, ok, asTenant, dryRun, control, duringAttack, bylawPid } = kit;
const postToWebhook = (path: string, body: string): Promise<{ status: number; text: string }> =>
  kit.callWebhook("POST", path, body);

function podReview(containers: readonly object[]): string {
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "attack",
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      namespace: "tenant-a",
      operation: "CREATE",
      userInfo: { username: "tenant-a-admin" },
      object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "tenant-a" }, spec: { containers } },
    },
  });
}

/** Bodies within the 7 MiB body cap that cost far more parsed than their text. */
const HOSTILE_BODIES: readonly { name: string; body: () => string; reason: RegExp }[] = [
  {
    name: "a 180,000-container Pod (an object past the API server's 3 MiB)",
    body: () => podReview(Array.from({ length: 180_000 }, (_, i) => ({ name: `c${i}`, image: "i" }))),
    reason: /more than 150000 entries \(--max-json-entries\)/,
  },
  {
    name: "7 MiB of empty objects in one array",
    body: () => `[${"{},".repeat((7 * MIB) / 3 - 1)}{}]`,
    reason: /more than 150000 entries/,
  },
  {
    name: "a million values in arrays under the entries bound",
    body: () => `[${Array.from({ length: 21 }, () => `[${"{},".repeat(49_999)}{}]`).join(",")}]`,
    reason: /more than 1000000 JSON values \(--max-json-values\)/,
  },
  {
    name: "3.6 million levels of nesting",
    body: () => `${"[".repeat((7 * MIB) / 2 - 1)}${"]".repeat((7 * MIB) / 2 - 1)}`,
    reason: /more than 1000 levels deep \(--max-json-depth\)/,
  },
];

function tenantPolicy(i: number): string {
  return `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: flood-${String(i).padStart(3, "0")}, namespace: tenant-a}
spec:
  validationFailureAction: Audit
  rules:
    - name: r
      match: {any: [{resources: {kinds: [ConfigMap]}}]}
      validate:
        message: "flood ${i}"
        pattern: {metadata: {labels: {flood-${i}: "?*"}}}
`;
}

const WIDE_POLICY = `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: wide, namespace: tenant-a}
spec:
  validationFailureAction: Enforce
  rules:
    - name: no-deny-label
      match: {any: [{resources: {kinds: [ConfigMap]}}]}
      validate:
        message: "her policy denies wide=deny"
        pattern: {metadata: {=(labels): {=(wide): "!deny"}}}
`;

const ADMIN_POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: admin-after-flood}
spec:
  validationFailureAction: Enforce
  rules:
    - name: no-flagged
      match: {any: [{resources: {kinds: [ConfigMap], namespaces: [tenant-b]}}]}
      validate:
        cel:
          expressions:
            - expression: "object.metadata.?labels.?flagged.orValue('') != 'yes'"
              message: "the admin policy applied after the flood denies flagged ConfigMaps"
`;

const readyOf = async (kind: string, name: string, ns?: string): Promise<{ status: string; message: string }> => {
  const args = ["get", kind, name, ...(ns !== undefined ? ["-n", ns] : [])];
  const status = await ok([...args, "-o", 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']);
  const message = await ok([...args, "-o", 'jsonpath={.status.conditions[?(@.type=="Ready")].message}']);
  return { status, message };
};

describe(
  "a tenant cannot make one request, her policies or /metrics cost others",
  { timeout: BUILD_TIMEOUT_MS + 20 * 60_000 },
  () => {
    before(async () => {
      await kit.setUp();
    });

    after(async () => {
      await kit.tearDown();
    });

    test("bodies that cost more parsed than their text, straight to the webhook port: 413 with the bound, unparsed, several at once", async () => {
      const pid = bylawPid();
      await duringAttack(async () => {
        for (const attack of HOSTILE_BODIES) {
          const body = attack.body();
          assert.ok(body.length <= 7 * MIB, `${attack.name} is within the body cap`);
          // Three at once: each is refused by the bound, or (past the in-flight budget) shed unread with 503.
          const answers = await Promise.all([1, 2, 3].map(() => postToWebhook("/validate/fail", body)));
          for (const a of answers) {
            if (a.status === 503 && /in flight/.test(a.text)) continue;
            assert.equal(a.status, 413, `${attack.name}: ${a.text.slice(0, 300)}`);
            assert.match(a.text, attack.reason, attack.name);
            assert.match(a.text, /it was not parsed/);
          }
          assert.ok(
            answers.some((a) => a.status === 413),
            `${attack.name}: ${answers.map((a) => a.status).join(",")}`,
          );
        }
      });
      assert.equal(bylawPid(), pid, "Bylaw was not restarted");
    });

    test("through the API server, what it sends is within the bounds: a 60,000-key ConfigMap is evaluated, denied or admitted by her policy", async () => {
      const pid = bylawPid();
      await asTenant(["apply", "-f", "-"], WIDE_POLICY);
      const data = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, ""]));
      const wide = (name: string, label: string): string =>
        JSON.stringify({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name, namespace: "tenant-a", labels: { wide: label } },
          data,
        });
      await eventually("her policy in force", 60_000, async () => {
        const r = await dryRun(TENANT, configMap("probe", "tenant-a", { wide: "deny" }));
        return r.code !== 0 ? true : undefined;
      });
      const [denied, admitted] = await duringAttack(() =>
        Promise.all([dryRun(TENANT, wide("wide-no", "deny")), dryRun(TENANT, wide("wide-yes", "allow"))]),
      );
      assert.notEqual(denied.code, 0, "the labelled 60,000-key ConfigMap was admitted");
      assert.match(denied.stderr, /her policy denies wide=deny/, denied.stderr.slice(0, 500));
      assert.equal(admitted.code, 0, admitted.stderr.slice(0, 500));
      await asTenant(["delete", "-f", "-"], WIDE_POLICY);
      assert.equal(bylawPid(), pid, "Bylaw was not restarted");
    });

    test("250 tenant Policies: 100 served, the rest refused at apply or Ready False with the budget; the admin's ClusterPolicy applied afterwards is Ready and enforced", async () => {
      const pid = bylawPid();
      const all = Array.from({ length: 250 }, (_, i) => tenantPolicy(i)).join("---\n");
      await duringAttack(async () => {
        const applied = await asTenant(["apply", "-f", "-"], all);
        // Once 100 are served the policy webhook refuses more; those that raced past it are stored
        // and not served (below). Nothing else fails.
        const errors = applied.stderr.split("Error from server").length - 1;
        const budget = applied.stderr.split("already holds").length - 1;
        assert.equal(errors, budget, applied.stderr.slice(0, 2000));
      });
      await ok(["apply", "-f", "-"], ADMIN_POLICY);
      await eventually("the admin policy Ready", 120_000, async () =>
        (await readyOf("clusterpolicies.kyverno.io", "admin-after-flood")).status === "True" ? true : undefined,
      );
      await eventually("the admin policy enforced", 60_000, async () => {
        const r = await dryRun([], configMap("flagged", "tenant-b", { flagged: "yes" }));
        return r.code !== 0 && /applied after the flood denies flagged/.test(r.stderr) ? true : undefined;
      });
      const states = await eventually("every tenant Policy has a Ready condition", 120_000, async () => {
        const out = await ok([
          "get",
          "policies.kyverno.io",
          "-n",
          "tenant-a",
          "-o",
          'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
        ]);
        const lines = out.trim().split("\n");
        return lines.length >= 100 && lines.every((l) => /=(True|False)$/.test(l)) ? lines : undefined;
      });
      assert.equal(states.filter((l) => l.endsWith("=True")).length, 100, "the first 100 are served");
      for (const line of states.filter((l) => l.endsWith("=False"))) {
        const over = await readyOf("policies.kyverno.io", line.split("=")[0] ?? "", "tenant-a");
        assert.match(over.message, /namespace tenant-a holds more than 100 policies/);
      }
      assert.equal((await readyOf("policies.kyverno.io", "flood-000", "tenant-a")).status, "True");
      // With the budget full, one more is refused at kubectl apply, naming the budget.
      const more = await asTenant(["apply", "-f", "-"], tenantPolicy(999));
      assert.notEqual(more.code, 0);
      assert.match(
        more.stderr,
        /namespace tenant-a already holds 100 policies, its budget \(--max-policies-per-namespace 100\)/,
      );
      const c = await control();
      assert.ok(c.right && c.ms < 2000, `control after the flood: ${JSON.stringify(c)}`);
      assert.equal(bylawPid(), pid, "Bylaw was not restarted");
      await asTenant(["delete", "policies.kyverno.io", "-n", "tenant-a", "--all"]);
    });

    test("--metrics-auth token: no token or a made-up one 401, the tenant's token 403, Prometheus' token served; no plain HTTP", async () => {
      const rbac = join(repoRoot(), "deploy", "components", "servicemonitor", "metrics-auth-rbac.yaml");
      await ok(["create", "namespace", "monitoring"]);
      await ok(["create", "serviceaccount", "prometheus-k8s", "-n", "monitoring"]);
      await ok(["apply", "-f", rbac]);
      await restartBylaw(current(), { extraArgs: "--metrics-auth token" });
      const port = Number(bylawEnv(current().dir)["BYLAW_METRICS_PORT"]);
      const scrape = (token?: string): Promise<{ status: number; text: string }> =>
        new Promise((resolve, reject) => {
          const req = httpsRequest(
            {
              host: "127.0.0.1",
              port,
              path: "/metrics",
              rejectUnauthorized: false,
              agent: false,
              headers: token !== undefined ? { authorization: `Bearer ${token}` } : {},
            },
            (res) => {
              let text = "";
              res.setEncoding("utf8");
              res.on("data", (c: string) => (text += c));
              res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
            },
          );
          req.on("error", reject);
          req.end();
        });
      await asTenant(["create", "serviceaccount", "scraper", "-n", "tenant-a"]);
      const tenantToken = (await asTenant(["create", "token", "scraper", "-n", "tenant-a"])).stdout.trim();
      assert.ok(tenantToken.length > 20, "the tenant minted a token of her own ServiceAccount");
      const promToken = (await ok(["create", "token", "prometheus-k8s", "-n", "monitoring"])).trim();
      await duringAttack(async () => {
        const none = await scrape();
        assert.equal(none.status, 401, none.text);
        for (const made of ["x", "eyJhbGciOiJSUzI1NiJ9.e30.c2ln", "a".repeat(2000)])
          assert.equal((await scrape(made)).status, 401);
        const tenant = await scrape(tenantToken);
        assert.equal(tenant.status, 403, tenant.text);
        assert.match(tenant.text, /system:serviceaccount:tenant-a:scraper may not get \/metrics/);
        assert.doesNotMatch(tenant.text, /kyverno_/);
        const prom = await scrape(promToken);
        assert.equal(prom.status, 200, prom.text.slice(0, 300));
        assert.match(prom.text, /kyverno_admission_requests_total/);
      });
      const plain = await new Promise<string>((resolve) => {
        const req = httpRequest({ host: "127.0.0.1", port, path: "/metrics", agent: false }, (res) => {
          resolve(`status ${res.statusCode ?? 0}`);
          res.resume();
        });
        req.on("error", (e) => resolve(`error ${e.message}`));
        req.setTimeout(5000, () => req.destroy(new Error("timeout")));
        req.end();
      });
      assert.doesNotMatch(plain, /status 200/, "plain HTTP does not serve /metrics");
    });
  },
);
