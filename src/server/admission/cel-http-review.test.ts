/**
 * CEL `http.Get/Post` in admission (`serve --cluster`, docs/adr/0012): through the real handlers,
 * engine, review-calls loop and live context port (live-context.ts over a LiveCluster that reads
 * nothing), against a listener the test serves on loopback. A policy's URL is policy-controlled:
 * the egress filter refuses loopback unless the operator allows it (`--egress-allow`), no token is
 * ever sent, and a namespaced policy makes no http call at all (tenant-isolation.md rule 3).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { EgressPolicy } from "../../kube/egress/egress-policy.js";
import { KubeClient } from "../../kube/kube-client.js";
import { policyUsesNetworkCalls } from "../../kube/live-calls.js";
import { LiveCluster } from "../../kube/live-cluster.js";
import { liveContextSources } from "../../kube/live-context.js";
import { CallScopes } from "../../kube/review-calls.js";
import { handleValidateBatch } from "./index.js";
import type { ReviewCallsPort } from "./review-calls-loop.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";
import type { AdmissionReviewJson, HandlerResult } from "./types.js";
import { selfSignedCertificate } from "../tls/self-signed.js";
import { pod } from "../../../test/support/builders.js";

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const CANARY = "upstream-canary-7f3a";

/** Answers by path: /decide/<name> allows only "good"; /status/<code> answers that status; /canary leaks a body. */
class Listener {
  readonly seen: Seen[] = [];
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "";
      this.seen.push({
        method: req.method ?? "",
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const [status, body] = path.startsWith("/decide/")
        ? [200, { allowed: path === "/decide/good" }]
        : path.startsWith("/status/")
          ? [Number(path.slice(8)), { reason: "said so" }]
          : path === "/canary"
            ? [500, { secret: CANARY }]
            : path === "/list"
              ? [200, ["a", "b"]]
              : [404, {}];
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  start(): Promise<void> {
    return new Promise((resolve) => this.server.listen(0, "127.0.0.1", resolve));
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function vpol(expression: string, namespace?: string): JsonObject {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind: namespace === undefined ? "ValidatingPolicy" : "NamespacedValidatingPolicy",
    metadata: namespace === undefined ? { name: "ask-the-service" } : { name: "ask-the-service", namespace },
    spec: {
      validationActions: ["Deny"],
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
      },
      validations: [{ expression, message: "the service says no" }],
    },
  };
}

const teamPod = (name: string): JsonObject =>
  pod({ name, namespace: "team", containers: [{ name: "c", image: "nginx" }] });

describe("CEL http.Get/Post in admission, through the record and the egress filter", () => {
  const listener = new Listener();
  // A LiveCluster whose API server is not there: the http calls never touch it.
  const client = new KubeClient({ connection: { server: "https://127.0.0.1:9", origin: "test" } });
  const cluster = new LiveCluster({
    client,
    budgetBytes: 1 << 20,
    random: { next: () => 0.5 },
    sleep: () => new Promise(() => {}),
  });
  before(() => listener.start());
  after(async () => {
    cluster.close();
    client.close();
    await listener.stop();
  });

  function setUp(policies: JsonObject[], allow: string[]) {
    const egress = EgressPolicy.create(allow);
    assert.ok(egress.ok);
    const scopes = new CallScopes();
    const posted: string[] = [];
    const context = liveContextSources(cluster, {
      calls: { scopes, post: async (path) => (posted.push(path), {}), egress: { policy: egress.value } },
    });
    let begun = 0;
    const port: ReviewCallsPort = {
      usesCalls: (p) => policyUsesNetworkCalls(p),
      begin: () => (begun++, scopes.begin()),
    };
    const fake = fakeDeps({ policies, ports: { ...fakePorts(), context }, realClock: true, deadlineSeconds: 5 });
    return { deps: { ...fake.deps, calls: port }, posted, begun: () => begun, admissions: fake.admissions };
  }

  async function review(deps: ReturnType<typeof setUp>["deps"], name: string): Promise<AdmissionReviewJson> {
    const [answer] = handleValidateBatch([reviewOf(teamPod(name))], deps);
    return (await (answer as HandlerResult | Promise<HandlerResult>)).body as AdmissionReviewJson;
  }

  it("a ValidatingPolicy calling http.Get takes the record-and-re-run path", () => {
    const t = setUp([vpol(`http.Get("${listener.url}/decide/" + object.metadata.name).allowed == true`)], []);
    const [policy] = t.deps.policies().policies;
    assert.ok(policy !== undefined && policyUsesNetworkCalls(policy));
    assert.equal(
      policyUsesNetworkCalls(
        setUp([vpol("object.metadata.name != 'http.Get'")], []).deps.policies().policies[0] ?? assert.fail(),
      ),
      false,
    );
  });

  it("a ValidatingPolicy calling resource.Post takes the same path: the server makes the create, once, and the answer decides", async () => {
    const t = setUp(
      [
        vpol(
          'resource.Post("authorization.k8s.io/v1", "subjectaccessreviews", {"spec": {"user": object.metadata.name}}) == {}',
        ),
      ],
      [],
    );
    const [policy] = t.deps.policies().policies;
    assert.ok(policy !== undefined && policyUsesNetworkCalls(policy));
    const answer = await review(t.deps, "alice");
    assert.deepEqual(t.posted, ["/apis/authorization.k8s.io/v1/subjectaccessreviews"]);
    assert.equal(answer.response?.allowed, true);
  });

  it("a NamespacedValidatingPolicy's resource.Post is refused (a namespaced policy only reads): a rule error, and nothing is posted", async () => {
    const t = setUp([vpol('resource.Post("v1", "configmaps", {"metadata": {"name": "x"}}) == {}', "team")], []);
    const answer = await review(t.deps, "alice");
    assert.deepEqual(t.posted, []);
    assert.equal(answer.response?.allowed, false);
  });

  it("a loopback URL is refused by the egress filter by default: a rule error under failurePolicy Fail, and no connection", async () => {
    const before = listener.seen.length;
    const t = setUp([vpol(`http.Get("${listener.url}/decide/" + object.metadata.name).allowed == true`)], []);
    const answer = await review(t.deps, "good");
    assert.equal(answer.response?.allowed, false);
    assert.match(
      answer.response?.status?.message ?? "",
      /service URL http:\/\/127\.0\.0\.1:\d+\/decide\/good: the address is loopback/,
    );
    assert.equal(listener.seen.length, before, "the listener saw no request");
    assert.equal(t.admissions.length, 1, "one admission recorded for the review, not one per pass");
  });

  it("with --egress-allow 127.0.0.0/8 the policy decides on the listener's answer; no Authorization header is sent", async () => {
    const t = setUp(
      [vpol(`http.Get("${listener.url}/decide/" + object.metadata.name).allowed == true`)],
      ["127.0.0.0/8"],
    );
    const before = listener.seen.length;
    const good = await review(t.deps, "good");
    assert.equal(good.response?.allowed, true);
    const bad = await review(t.deps, "bad");
    assert.equal(bad.response?.allowed, false);
    assert.match(bad.response?.status?.message ?? "", /ask-the-service.*the service says no/);
    const seen = listener.seen.slice(before);
    assert.deepEqual(
      seen.map((s) => `${s.method} ${s.path}`),
      ["GET /decide/good", "GET /decide/bad"],
      "each review made its call once",
    );
    assert.ok(seen.every((s) => s.headers.authorization === undefined));
    assert.deepEqual(t.posted, [], "nothing went to the API server");
  });

  it("http.Post sends the CEL body as JSON and only the headers the policy states; the answer carries statusCode, whatever the status", async () => {
    const expression = `http.Post("${listener.url}/status/403", {"pod": object.metadata.name, "n": 2}, {"X-Team": "a"}).statusCode == 403 && http.Get("${listener.url}/list").body == ["a", "b"] && http.Get("${listener.url}/list").statusCode == 200`;
    const t = setUp([vpol(expression)], ["127.0.0.0/8"]);
    const before = listener.seen.length;
    assert.equal((await review(t.deps, "p1")).response?.allowed, true);
    const seen = listener.seen.slice(before);
    assert.deepEqual(
      seen.map((s) => `${s.method} ${s.path}`).sort(),
      ["GET /list", "POST /status/403"],
      "the same call twice in one expression is made once",
    );
    const post = seen.find((s) => s.method === "POST");
    assert.deepEqual(JSON.parse(post?.body ?? "null"), { pod: "p1", n: 2 });
    assert.equal(post?.headers["x-team"], "a");
    assert.ok(seen.every((s) => s.headers.authorization === undefined));
  });

  it("an upstream body reaches the policy only: a rule error on it never copies the body into the message", async () => {
    const t = setUp([vpol(`http.Get("${listener.url}/canary").allowed == true`)], ["127.0.0.0/8"]);
    const answer = await review(t.deps, "p2");
    assert.equal(answer.response?.allowed, false);
    assert.doesNotMatch(JSON.stringify(answer), new RegExp(CANARY));
  });

  it("a NamespacedValidatingPolicy may not make http calls: refused before anything is made, answered under failurePolicy Fail", async () => {
    const t = setUp([vpol(`http.Get("${listener.url}/decide/good").allowed == true`, "team")], ["127.0.0.0/8"]);
    const before = listener.seen.length;
    const answer = await review(t.deps, "good");
    assert.equal(answer.response?.allowed, false);
    assert.match(
      answer.response?.status?.message ?? "",
      /http calls are not allowed in namespaced policies \(this one is in namespace "team"\)/,
    );
    assert.equal(listener.seen.length, before, "the listener saw no request");
  });
  // kyverno/sdk extensions/cel/libs/http: Client(caBundle) makes a client that trusts that CA.
  it("http.Client(caBundle) reaches an HTTPS service signed by that CA through the egress filter; the default client does not trust it", async () => {
    const tls = selfSignedCertificate({ dnsNames: ["svc.test"], includeLoopback: true, now: new Date() });
    const server = createTlsServer({ cert: tls.cert, key: tls.key }, (_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ allowed: true })),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/decide`;
      const trusted = setUp(
        [vpol(`http.Client(${JSON.stringify(tls.caCert)}).Get("${url}").allowed == true`)],
        ["127.0.0.0/8"],
      );
      const ok3 = await review(trusted.deps, "p3");
      assert.equal(ok3.response?.allowed, true, JSON.stringify(ok3.response));
      const untrusted = setUp([vpol(`http.Get("${url}").allowed == true`)], ["127.0.0.0/8"]);
      const answer = await review(untrusted.deps, "p4");
      assert.equal(answer.response?.allowed, false);
      assert.match(answer.response?.status?.message ?? "", /certificate/i);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
