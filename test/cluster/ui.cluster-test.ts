/**
 * Issue 38 §1, the report UI (docs/adr/0022-report-ui.md), in Debian's chromium (headless, driven
 * by playwright-core with `executablePath`: no browser is downloaded) against `scripts/cluster.sh up
 * DIR --with-bylaw` with `--ui-port` and the reports controller:
 * - `/api/reports` reads with the viewer's token only: 401 without one or with one the API server
 *   refuses; a ServiceAccount with no rights gets every kind named as not read, and no rows;
 * - the overview, a policy page and a resource page over PolicyReports Bylaw wrote (an Audit
 *   ClusterPolicy failing a Pod) and one another tool wrote (kubectl);
 * - a filter in the URL survives a reload;
 * - a report written while the page is open appears without a reload;
 * - a policy name and a message holding HTML show as text (no element, no script run);
 * - the policy page shows the policy's status conditions and YAML, read with the viewer's token;
 * - a result's "why" panel explains it (the clause that matched, the path that failed), from the
 *   policy and Pod read with the viewer's token;
 * - a viewer who may list PolicyReports only in one namespace (a RoleBinding) names it when signing
 *   in and sees that namespace's reports, the page saying where they were read.
 * Screenshots of each page go to a temporary folder, named in the output (not kept in the repository).
 * Skips, naming the binary, when chromium is not installed (`apt-get install -y chromium`;
 * BYLAW_CHROMIUM names another path).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { eventually, kubectlOk, startCluster, started, tearDown, type Cluster } from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
const CHROMIUM = process.env["BYLAW_CHROMIUM"] ?? "/usr/bin/chromium";
const skip = existsSync(CHROMIUM)
  ? false
  : `chromium is not installed at ${CHROMIUM} (apt-get install -y chromium, or set BYLAW_CHROMIUM)`;

let cluster: Cluster | undefined;
let browser: Browser | undefined;
let uiPort = 0;
let viewerToken = "";
let nobodyToken = "";
let shopperToken = "";
const shots = mkdtempSync(join(tmpdir(), "bylaw-ui-screenshots-"));

const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);
const base = (): string => `https://127.0.0.1:${uiPort}`;

const GRANT = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reports-pods
  labels:
    rbac.kyverno.io/aggregate-to-reports-controller: "true"
rules:
  - apiGroups: [""]
    resources: [pods]
    verbs: [get, list, watch]
`;

/** The viewer: may list PolicyReports and ClusterPolicyReports, nothing else. */
const VIEWER = `apiVersion: v1
kind: ServiceAccount
metadata: { name: viewer, namespace: default }
---
apiVersion: v1
kind: ServiceAccount
metadata: { name: nobody, namespace: default }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: report-viewer }
rules:
  - apiGroups: [wgpolicyk8s.io]
    resources: [policyreports, clusterpolicyreports]
    verbs: [get, list, watch]
  - apiGroups: [kyverno.io]
    resources: [clusterpolicies]
    verbs: [get]
  - apiGroups: [""]
    resources: [pods]
    verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: report-viewer }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: report-viewer }
subjects:
  - { kind: ServiceAccount, name: viewer, namespace: default }
`;

/** The shopper: may list PolicyReports in namespace shop only. */
const SHOPPER = `apiVersion: v1
kind: ServiceAccount
metadata: { name: shopper, namespace: default }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: shop-reports, namespace: shop }
rules:
  - apiGroups: [wgpolicyk8s.io]
    resources: [policyreports]
    verbs: [list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: shop-reports, namespace: shop }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: shop-reports }
subjects:
  - { kind: ServiceAccount, name: shopper, namespace: default }
`;

const HOSTILE_MESSAGE = `<img src=x onerror="window.__pwned='message'"> a team label is required`;
const HOSTILE_POLICY = `<script>window.__pwned='policy'</script>`;

const TEAM = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-team
spec:
  background: true
  validationFailureAction: Audit
  rules:
    - name: team
      match:
        any:
          - resources:
              kinds: [Pod]
              namespaces: [shop]
      validate:
        message: ${JSON.stringify(HOSTILE_MESSAGE)}
        pattern:
          metadata:
            labels:
              team: "?*"
`;

const pod = (name: string, team?: string): string =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "shop", ...(team !== undefined ? { labels: { team } } : {}) },
    spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
  });

/** A PolicyReport another tool wrote, with a policy name holding HTML. */
const foreignReport = (name: string, resource: string): string =>
  JSON.stringify({
    apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: "PolicyReport",
    metadata: { name, namespace: "shop", labels: { "app.kubernetes.io/managed-by": "other-scanner" } },
    scope: { apiVersion: "v1", kind: "ConfigMap", name: resource, namespace: "shop" },
    results: [
      {
        policy: HOSTILE_POLICY,
        rule: "scan",
        result: "warn",
        severity: "high",
        category: "Other",
        source: "other-scanner",
        message: `checked ${resource}`,
        scored: true,
        timestamp: { seconds: Math.floor(Date.now() / 1000) - 600, nanos: 0 },
      },
    ],
    summary: { pass: 0, fail: 0, warn: 1, error: 0, skip: 0 },
  });

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** GET on the UI (its certificate is Bylaw's self-signed one) with `token`, if any. */
function get(
  path: string,
  token?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base()}${path}`,
      { rejectUnauthorized: false, headers: token !== undefined ? { authorization: `Bearer ${token}` } : {} },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function shot(page: Page, name: string): Promise<void> {
  const file = join(shots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`# screenshot: ${file}`);
}

/** A signed-in tab on `fragment`, drawn (as the viewer unless `as` names another token and namespaces). */
async function openPage(fragment: string, as?: { token: string; namespaces: string }): Promise<Page> {
  const context = await (browser as Browser).newContext({
    ignoreHTTPSErrors: true,
    viewport: { width: 1280, height: 900 },
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(e.message));
  (page as Page & { problems?: string[] }).problems = problems;
  await page.goto(`${base()}/${fragment}`);
  await page.fill('input[name="token"]', as?.token ?? viewerToken);
  if (as !== undefined) await page.fill('input[name="namespaces"]', as.namespaces);
  await page.click('button[type="submit"]');
  await page.waitForSelector("section[data-page]");
  return page;
}

const problemsOf = (page: Page): string[] => (page as Page & { problems?: string[] }).problems ?? [];

describe("the report UI in chromium", { skip, timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(async () => {
    uiPort = await freePort();
    cluster = await startCluster(buildTimeoutMs, undefined, {
      withBylaw: true,
      bylawArgs: `--reports-controller --background-scan-interval 10s --ui-port ${uiPort}`,
    });
    await ok(["apply", "-f", "-"], GRANT);
    await ok(["apply", "-f", "-"], VIEWER);
    await eventually("the aggregated grant to reach Bylaw's ServiceAccount", 60_000, async () => {
      const r = await current().kubectl([
        "auth",
        "can-i",
        "watch",
        "pods",
        "--as",
        "system:serviceaccount:bylaw:bylaw",
        "-A",
      ]);
      return r.stdout.trim() === "yes" ? true : undefined;
    });
    await ok(["create", "namespace", "shop"]);
    await ok(["apply", "-f", "-"], SHOPPER);
    await ok(["apply", "-f", "-"], TEAM);
    await ok(["wait", "--for=condition=Ready", "clusterpolicy/require-team", "--timeout=60s"]);
    await eventually("the Pods to be admitted", 60_000, async () =>
      (await current().kubectl(["apply", "-f", "-"], pod("web"))).code === 0 &&
      (await current().kubectl(["apply", "-f", "-"], pod("api", "payments"))).code === 0
        ? true
        : undefined,
    );
    await ok(["apply", "-f", "-"], foreignReport("other-scanner-settings", "settings"));
    viewerToken = (await ok(["create", "token", "viewer", "-n", "default"])).trim();
    nobodyToken = (await ok(["create", "token", "nobody", "-n", "default"])).trim();
    shopperToken = (await ok(["create", "token", "shopper", "-n", "default"])).trim();
    // Bylaw's background scan writes the Pods' reports: wait for both rows through the UI's own API.
    await eventually("Bylaw's reports of both Pods, read through /api/reports", 120_000, async () => {
      const r = await get("/api/reports", viewerToken);
      if (r.status !== 200) return undefined;
      const rows = (JSON.parse(r.body) as { rows: { policy: string; name: string; result: string }[] }).rows;
      const has = (name: string, result: string): boolean =>
        rows.some((x) => x.policy === "require-team" && x.name === name && x.result === result);
      return has("web", "fail") && has("api", "pass") ? true : undefined;
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
    console.log(`# screenshots in ${shots}`);
  });
  after(async () => {
    await browser?.close();
    await tearDown(cluster);
  });

  test("/api/reports answers only with the viewer's own rights, and the page carries a strict CSP", async () => {
    const none = await get("/api/reports");
    assert.equal(none.status, 401);
    assert.match(none.body, /bearer token is needed/);
    const refused = await get("/api/reports", "not-a-token");
    assert.equal(refused.status, 401, refused.body);

    const nobody = JSON.parse((await get("/api/reports", nobodyToken)).body) as {
      rows: unknown[];
      sources: { kind: string; state: string }[];
    };
    assert.deepEqual(
      nobody.rows,
      [],
      "a ServiceAccount with no rights sees no report, though Bylaw's own account may list them",
    );
    assert.deepEqual(
      Object.fromEntries(nobody.sources.map((s) => [s.kind, s.state])),
      // The authorizer answers before the API server looks the path up: openreports.io is refused, not missing.
      { PolicyReport: "forbidden", ClusterPolicyReport: "forbidden", Report: "forbidden", ClusterReport: "forbidden" },
    );

    const page = await get("/");
    assert.equal(page.status, 200);
    const csp = String(page.headers["content-security-policy"]);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(
      page.body,
      /<script>|style=|https?:\/\//,
      "the page has no inline script or style and names no other host",
    );
    const post = await new Promise<number>((resolve, reject) => {
      const req = request(`${base()}/api/reports`, { method: "POST", rejectUnauthorized: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
    assert.equal(post, 405, "read-only");
  });

  test("the overview counts Bylaw's and another tool's results, shows HTML as text, and names what it could not read", async () => {
    const page = await openPage("");
    await page.waitForSelector('section[data-group="policy"] a');
    const policies = await page.locator('section[data-group="policy"] tbody th').allTextContents();
    assert.ok(policies.includes("require-team"), policies.join(", "));
    assert.ok(
      policies.includes(HOSTILE_POLICY),
      `the hostile policy name is shown as its text: ${policies.join(", ")}`,
    );
    assert.equal(await page.locator("script:not([src])").count(), 0, "no script element came from the data");
    assert.equal(await page.evaluate(() => (window as { __pwned?: string }).__pwned), undefined);
    const fail = Number(await page.locator('.total[data-result="fail"] b').textContent());
    assert.ok(fail >= 1, `fail total ${fail}`);
    // The plots: top failing namespaces (each a link filtering the overview), and every result over time.
    const namespaces = await page.locator("section.top").nth(1).locator("li a").allTextContents();
    assert.ok(namespaces.length >= 1, "a namespace with failures is plotted");
    const totals = await page.locator(".total b").allTextContents();
    const counted = await page
      .locator("ol.timeline li")
      .evaluateAll((lis) =>
        lis.reduce(
          (n, li) => n + ["failing", "passing", "other"].reduce((m, k) => m + Number(li.getAttribute(`data-${k}`)), 0),
          0,
        ),
      );
    assert.equal(
      counted,
      totals.reduce((n, t) => n + Number(t), 0),
      "every result (Bylaw's and the other scanner's, all timestamped) is in one time bucket",
    );
    assert.match((await page.textContent("section.over-time .note")) ?? "", /per (minute|5 minutes|15 minutes)/);
    const notes = await page.locator(".sources li").allTextContents();
    assert.deepEqual(notes, [
      "Reports not read: you may not list them",
      "ClusterReports not read: you may not list them",
    ]);
    await shot(page, "overview");
    assert.deepEqual(problemsOf(page), [], "no console error and no CSP violation");
    await page.context().close();
  });

  test("a filter in the URL survives a reload", async () => {
    const page = await openPage("#/?status=fail&namespace=shop");
    await page.waitForSelector('section[data-group="policy"]');
    assert.equal(await page.locator('select[name="status"]').inputValue(), "fail");
    const statuses = async (): Promise<string[]> =>
      page
        .locator('section[data-group="policy"] tbody tr')
        .evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll("td"), (td) => td.textContent).join(",")));
    const before = await statuses();
    assert.ok(before.length > 0);
    for (const row of before) assert.match(row, /^0,\d+,0,0,0$/, `only failures counted: ${row}`);
    await page.reload();
    await page.waitForSelector('section[data-group="policy"]');
    assert.equal(
      await page.locator('select[name="status"]').inputValue(),
      "fail",
      "the filter is read back from the URL",
    );
    assert.match(page.url(), /#\/\?status=fail&namespace=shop$/);
    assert.deepEqual(await statuses(), before);
    await shot(page, "overview-filtered");
    await page.context().close();
  });

  test("a policy page lists its rules and results; a resource page every result on it; HTML in a message is text", async () => {
    const page = await openPage("");
    await page.click('section[data-group="policy"] a:text-is("require-team")');
    await page.waitForSelector('section[data-page="policy"]');
    assert.equal(await page.locator("h1").textContent(), "Policy require-team");
    assert.match(page.url(), /#\/policy\/require-team$/);
    const messages = await page.locator("td.message").allTextContents();
    assert.ok(
      messages.some((m) => m.includes(HOSTILE_MESSAGE)),
      `the message's markup is shown as text: ${messages.join(" | ")}`,
    );
    assert.equal(await page.locator("td.message img").count(), 0, "no element was made from a message");
    assert.equal(await page.evaluate(() => (window as { __pwned?: string }).__pwned), undefined);
    // The policy itself, read with the viewer's token: its status conditions and its YAML.
    await page.waitForSelector('section.policy-text[data-state="read"]');
    assert.equal(await page.locator("section.policy-text h3").textContent(), "ClusterPolicy require-team");
    assert.equal(
      await page.locator('tr.condition[data-type="Ready"]').getAttribute("data-status"),
      "True",
      "the Ready condition Bylaw wrote",
    );
    const yaml = (await page.locator("section.policy-text pre.yaml").textContent()) ?? "";
    assert.match(yaml, /^kind: ClusterPolicy$/m);
    assert.match(yaml, /validationFailureAction: Audit/);
    assert.doesNotMatch(yaml, /managedFields|last-applied-configuration/);
    assert.ok(yaml.includes("<img src=x"), "the YAML's markup is text too");
    assert.equal(await page.locator("pre.yaml img").count(), 0);
    await shot(page, "policy");

    await page.click('a.resource:text-is("Pod shop/web")');
    await page.waitForSelector('section[data-page="resource"]');
    assert.equal(await page.locator("h1").textContent(), "Pod shop/web");
    const results = await page.locator("tr.row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-result")));
    assert.deepEqual(results, ["fail"]);
    await shot(page, "resource");

    // Why: the Pod and the policy read with the viewer's token, evaluated again, explained.
    await page.click("tr.row button.why");
    await page.waitForSelector('tr.why-panel .why-box[data-state="read"]', { timeout: 30_000 });
    const why = (await page.locator("pre.why-text").textContent()) ?? "";
    assert.match(why, /^explain: ClusterPolicy require-team on Pod shop\/web \(CREATE\)$/m);
    assert.match(why, /^ {2}rule team: fail\n {4}match: match\.any\[0\] selected it; no exclude$/m);
    assert.match(why, /^ {4}failed at \/metadata\/labels\/: found .*, the pattern wants \{"team":"\?\*"\}$/m);
    assert.ok(why.includes(HOSTILE_MESSAGE), "the rule's message, markup as text");
    assert.equal(await page.locator("tr.why-panel img").count(), 0, "no element was made from the explanation");
    const notes = await page.locator("tr.why-panel p.note").allTextContents();
    assert.ok(
      notes.some((n) => n.startsWith("the labels of namespace shop were not read")),
      notes.join(" | "),
    );
    await shot(page, "resource-why");
    assert.deepEqual(problemsOf(page), []);
    await page.context().close();
  });

  test("a viewer who may list reports only in namespace shop sees them there once named, and the page says where", async () => {
    const page = await openPage("", { token: shopperToken, namespaces: "shop" });
    await page.waitForSelector('section[data-group="policy"] a');
    const policies = await page.locator('section[data-group="policy"] tbody th').allTextContents();
    assert.ok(policies.includes("require-team"), policies.join(", "));
    const namespaces = await page.locator('section[data-group="namespace"] tbody th').allTextContents();
    assert.deepEqual(namespaces, ["shop"]);
    const notes = await page.locator(".sources li").allTextContents();
    assert.ok(
      notes.includes("PolicyReports listed in shop only: you may not list them cluster-wide"),
      notes.join(" | "),
    );
    assert.ok(notes.includes("ClusterPolicyReports not read: you may not list them"), notes.join(" | "));
    await shot(page, "namespaced-viewer");
    assert.deepEqual(problemsOf(page), []);
    await page.context().close();

    // Without naming the namespace, nothing is read and the page says so.
    const wide = await openPage("", { token: shopperToken, namespaces: "" });
    const wideNotes = await wide.locator(".sources li").allTextContents();
    assert.ok(wideNotes.includes("PolicyReports not read: you may not list them"), wideNotes.join(" | "));
    assert.equal(await wide.locator('.total[data-result="fail"] b').textContent(), "0");
    await wide.context().close();
  });

  test("a report written while the page is open appears without a reload", async () => {
    const page = await openPage(`#/policy/${encodeURIComponent(HOSTILE_POLICY)}`);
    await page.waitForSelector('section[data-page="policy"]');
    assert.equal(await page.locator('a.resource:text-is("ConfigMap shop/late")').count(), 0);
    let reloaded = false;
    page.on("load", () => (reloaded = true));
    await ok(["apply", "-f", "-"], foreignReport("other-scanner-late", "late"));
    await page.waitForSelector('a.resource:text-is("ConfigMap shop/late")', { timeout: 30_000 });
    assert.equal(reloaded, false);
    await shot(page, "live-update");
    await page.context().close();
  });
});
