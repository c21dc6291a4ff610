/** The report UI's listener: its headers, the built page, read-only, and reads made with the viewer's token only. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { selfSignedCertificate } from "../server/tls/self-signed.js";
import { send } from "../../test/support/https-send.js";
import type { ViewerAnswer, ViewerReads } from "../kube/viewer-reads.js";
import { createUiServer } from "./ui-server.js";
import { createEngine } from "../engine/index.js";
import { fakePorts } from "../../test/support/fake-ports.js";

const cert = selfSignedCertificate({ dnsNames: ["webhook.test.svc"], now: new Date() });

const REPORT = {
  metadata: { name: "r", namespace: "shop" },
  scope: { kind: "Pod", name: "web" },
  results: [{ policy: "p", result: "fail" }],
};

const POLICY = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: {
    name: "require-team",
    managedFields: [{ manager: "kubectl" }],
    annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" },
  },
  spec: { rules: [{ name: "team" }] },
  status: {
    conditions: [{ type: "Ready", status: "True", reason: "Succeeded", message: "Ready", lastTransitionTime: "t" }],
  },
};

/**
 * Answers as the API server would for each token: `good` may list wgpolicyk8s.io reports and get
 * kyverno.io policies; `shop-only` may list PolicyReports in namespace shop only.
 */
function readsFor(calls: string[]): ViewerReads {
  return {
    get(token, path): Promise<ViewerAnswer> {
      calls.push(`${token} ${path}`);
      if (token === "expired") return Promise.resolve({ ok: false, status: 401, message: "Unauthorized" });
      if (token === "shop-only" && path === "/apis/wgpolicyk8s.io/v1alpha2/namespaces/shop/policyreports")
        return Promise.resolve({ ok: true, body: { metadata: { resourceVersion: "9" }, items: [REPORT] } });
      if (token === "good" && path === "/apis/kyverno.io/v1/clusterpolicies/require-team")
        return Promise.resolve({ ok: true, body: POLICY });
      if (token === "good" && path.includes("/policies.kyverno.io/"))
        return Promise.resolve({ ok: false, status: 404, message: "not found" });
      if (token === "good" && path.includes("wgpolicyk8s.io"))
        return Promise.resolve({
          ok: true,
          body: {
            metadata: { resourceVersion: "7" },
            items: path.endsWith("/policyreports") ? [REPORT] : [],
          },
        });
      return Promise.resolve({ ok: false, status: 403, message: "forbidden" });
    },
    close() {},
  };
}

async function withServer(
  bundle: { script: string; style: string } | undefined,
  run: (port: number, calls: string[]) => Promise<void>,
): Promise<void> {
  const calls: string[] = [];
  const server = createUiServer({
    host: "127.0.0.1",
    port: 0,
    tls: { cert: cert.cert, key: cert.key },
    reads: readsFor(calls),
    bundle,
  });
  const { port } = await server.listen();
  try {
    await run(port, calls);
  } finally {
    await server.close();
  }
}

const get = (port: number, path: string, headers: Record<string, string> = {}) =>
  send(port, cert.caCert, { method: "GET", path, headers });

test("the page, script and style are served with a strict CSP and no inline code", async () => {
  await withServer({ script: "console.log(1)", style: "body{}" }, async (port) => {
    const page = await get(port, "/");
    assert.equal(page.status, 200);
    const csp = String(page.headers["content-security-policy"]);
    for (const d of [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "frame-ancestors 'none'",
    ])
      assert.ok(csp.includes(d), `${d} in ${csp}`);
    assert.equal(page.headers["x-content-type-options"], "nosniff");
    assert.doesNotMatch(page.body, /<script>|<style|style=|\/\/[a-z]/i);
    assert.equal((await get(port, "/app.js")).body, "console.log(1)");
    assert.match(String((await get(port, "/app.js")).headers["content-type"]), /^text\/javascript/);
    assert.equal((await get(port, "/app.css")).body, "body{}");
    assert.equal((await get(port, "/favicon.ico")).status, 204);
    assert.equal((await get(port, "/etc/passwd")).status, 404);
    const post = await send(port, cert.caCert, { method: "POST", path: "/api/reports", body: "{}" });
    assert.equal(post.status, 405);
  });
});

test("the build's bundle is served: a script and a style sheet, nothing fetched from elsewhere", async () => {
  await withServer(undefined, async (port) => {
    const script = await get(port, "/app.js");
    if (script.status === 503) {
      assert.match(script.body, /npm run build/);
      return;
    }
    assert.equal(script.status, 200);
    assert.ok(script.body.length > 1000, "the bundled page script");
    assert.doesNotMatch(script.body, /https?:\/\/(?!www\.w3\.org)/, "no URL of another host in the script");
    assert.doesNotMatch(
      script.body,
      /innerHTML|outerHTML|insertAdjacentHTML|document\.write/,
      "no HTML is parsed from data",
    );
    assert.match((await get(port, "/app.css")).body, /font-family:system-ui/);
  });
});

test("/playground: its page, and the engine's bundle, under a CSP that allows no request at all", async () => {
  await withServer({ script: "console.log(1)", style: "body{}" }, async (port) => {
    const page = await get(port, "/playground");
    if (page.status === 503) {
      assert.match(page.body, /npm run build/);
      return;
    }
    assert.equal(page.status, 200);
    const csp = String(page.headers["content-security-policy"]);
    for (const d of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"])
      assert.ok(csp.includes(d), `${d} in ${csp}`);
    assert.doesNotMatch(csp, /connect-src/, "no fetch, no WebSocket: the playground calls no server");
    assert.match(page.body, /<script defer src="\/playground\.js"><\/script>/);
    assert.doesNotMatch(page.body, /<script>|<style|style=/i);
    const script = await get(port, "/playground.js");
    assert.equal(script.status, 200);
    assert.ok(script.body.length > 500_000, "the engine is in the page's script");
    assert.doesNotMatch(script.body, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    assert.match((await get(port, "/playground.css")).body, /textarea/);
    assert.equal((await get(port, "/playground/other")).status, 404);
  });
});

test("/api/reports reads with the viewer's token only: none 401, refused 401, what the viewer may not list is named", async () => {
  await withServer({ script: "", style: "" }, async (port, calls) => {
    const none = await get(port, "/api/reports");
    assert.equal(none.status, 401);
    assert.equal(none.headers["www-authenticate"], "Bearer");
    assert.equal(calls.length, 0, "nothing is read without a token");
    assert.equal((await get(port, "/api/reports", { authorization: "Basic dXNlcg==" })).status, 401);

    assert.equal((await get(port, "/api/reports", { authorization: "Bearer expired" })).status, 401);

    const ok = await get(port, "/api/reports", { authorization: "Bearer good" });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers["cache-control"], "no-store");
    const answer = ok.json as { rows: { policy: string; name: string }[]; sources: { kind: string; state: string }[] };
    assert.deepEqual(
      answer.rows.map((r) => `${r.policy} ${r.name}`),
      ["p web"],
    );
    assert.deepEqual(
      answer.sources.map((s) => `${s.kind} ${s.state}`),
      ["PolicyReport read", "ClusterPolicyReport read", "Report forbidden", "ClusterReport forbidden"],
    );
    assert.ok(
      calls.filter((c) => !c.startsWith("expired ")).every((c) => c.startsWith("good /apis/")),
      `every read carried the viewer's token: ${calls.join(", ")}`,
    );
  });
});

test("a viewer who may list reports only in some namespaces reads them namespace by namespace, where asked", async () => {
  await withServer({ script: "", style: "" }, async (port, calls) => {
    const auth = { authorization: "Bearer shop-only" };
    const wide = (await get(port, "/api/reports", auth)).json as { rows: unknown[]; sources: { state: string }[] };
    assert.deepEqual(wide.rows, []);
    assert.ok(wide.sources.every((s) => s.state === "forbidden"));

    const answer = (await get(port, "/api/reports?namespaces=shop,bank", auth)).json as {
      rows: { name: string }[];
      sources: { kind: string; state: string; message: string; namespaces?: Record<string, string> }[];
    };
    assert.deepEqual(
      answer.rows.map((r) => r.name),
      ["web"],
    );
    const reports = answer.sources.find((s) => s.kind === "PolicyReport");
    assert.equal(reports?.state, "read");
    assert.deepEqual(reports?.namespaces, { shop: "read", bank: "forbidden" });
    assert.match(reports?.message ?? "", /listed in shop only/);
    assert.equal(answer.sources.find((s) => s.kind === "ClusterPolicyReport")?.state, "forbidden");
    assert.ok(calls.includes("shop-only /apis/openreports.io/v1alpha1/namespaces/bank/reports"));

    const bad = await get(port, "/api/reports?namespaces=shop,..%2Fsecrets", auth);
    assert.equal(bad.status, 400);
    assert.match(bad.body, /not a namespace name/);
    assert.ok(!calls.some((c) => c.includes("secrets")), "a bad name reaches no path");
  });
});

test("/api/policy answers the policy's status conditions and its YAML, read with the viewer's token", async () => {
  await withServer({ script: "", style: "" }, async (port, calls) => {
    assert.equal((await get(port, "/api/policy?name=require-team")).status, 401);
    const found = await get(port, "/api/policy?name=require-team", { authorization: "Bearer good" });
    assert.equal(found.status, 200);
    const answer = found.json as {
      policies: { kind: string; conditions: { type: string; status: string }[]; yaml: string }[];
      kinds: { kind: string; state: string }[];
    };
    assert.deepEqual(
      answer.policies.map((p) => [p.kind, p.conditions.map((c) => `${c.type}=${c.status}`)]),
      [["ClusterPolicy", ["Ready=True"]]],
    );
    const yaml = answer.policies[0]?.yaml ?? "";
    assert.match(yaml, /^kind: ClusterPolicy$/m);
    assert.match(yaml, /- name: team/);
    assert.doesNotMatch(yaml, /managedFields|last-applied/);
    assert.equal(answer.kinds.find((k) => k.kind === "ValidatingPolicy")?.state, "absent");
    assert.equal(answer.kinds.find((k) => k.kind === "ValidatingAdmissionPolicy")?.state, "forbidden");
    assert.ok(
      !answer.kinds.some((k) => k.kind === "Policy"),
      "a cluster-wide name is not looked up as a namespaced one",
    );
    assert.ok(calls.every((c) => c.startsWith("good ")));

    calls.length = 0;
    const namespaced = (await get(port, "/api/policy?name=shop/team", { authorization: "Bearer good" })).json as {
      kinds: { kind: string }[];
    };
    assert.ok(namespaced.kinds.some((k) => k.kind === "Policy"));
    assert.ok(calls.includes("good /apis/kyverno.io/v1/namespaces/shop/policies/team"), calls.join(", "));

    const bad = await get(port, "/api/policy?name=..%2F..%2Fapi", { authorization: "Bearer good" });
    assert.equal(bad.status, 400);
  });
});

test("/api/explain: 401 without a token, 503 without an engine, one explanation at a time (the next is 429)", async () => {
  await withServer(undefined, async (port) => {
    assert.equal((await get(port, "/api/explain?policy=p")).status, 401);
    const none = await get(port, "/api/explain?policy=p", { authorization: "Bearer good" });
    assert.equal(none.status, 503);
  });
  // Reads that answer only when let go: the first explanation is still being worked out.
  const waiting: (() => void)[] = [];
  const slow: ViewerReads = {
    get: () =>
      new Promise<ViewerAnswer>((resolve) =>
        waiting.push(() => resolve({ ok: false, status: 404, message: "not found" })),
      ),
    close() {},
  };
  const server = createUiServer({
    host: "127.0.0.1",
    port: 0,
    tls: { cert: cert.cert, key: cert.key },
    reads: slow,
    engine: createEngine(fakePorts()),
  });
  const { port } = await server.listen();
  try {
    const path = "/api/explain?policy=p&apiVersion=v1&kind=Pod&namespace=shop&name=web";
    const first = get(port, path, { authorization: "Bearer good" });
    while (waiting.length === 0) await new Promise((r) => setTimeout(r, 5));
    const second = await get(port, path, { authorization: "Bearer good" });
    assert.equal(second.status, 429);
    assert.equal(second.headers["retry-after"], "1");
    for (const release of waiting.splice(0)) release();
    const answered = await first;
    assert.equal(answered.status, 404);
    assert.match(answered.body, /no policy \\"p\\" that you may read/);
  } finally {
    await server.close();
  }
});
