/**
 * Issue 22 §7 and "Done when": Bylaw's own requests succeed with exactly the RBAC deploy/ ships, and a
 * missing permission fails visibly. `scripts/cluster.sh up --with-bylaw` applies the base's render
 * (CRDs, namespace, the admission controller's ServiceAccount, RBAC and empty certificate Secret, the
 * empty webhook configurations) and runs `bylaw serve` with the Deployment's own arguments
 * (`--cluster --register --leader-elect --tls-secret bylaw-tls …`) as that ServiceAccount. This test
 * checks that it did exactly that, that Bylaw then becomes the leader, fills the Secret, registers,
 * writes policy status and enforces a policy; and that with the Lease grant taken out of the Role it
 * never becomes Ready, until the grant is back.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parseAllDocuments } from "yaml";
import {
  eventually,
  kubectlOk as kubectlIn,
  processRunning,
  readPids,
  restartBylaw as restartBylawIn,
  run,
  startCluster,
  started,
  stopCluster,
  type Cluster,
} from "./cluster-harness.js";

const buildTimeoutMs = 90 * 60_000;
let cluster: Cluster | undefined;
const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlIn(current(), args, input);

type Obj = Record<string, unknown> & { kind?: string; metadata?: { name?: string }; rules?: unknown };
/** The base's render that --with-bylaw applied (DIR/bylaw-base.yaml). */
const rendered = (): Obj[] =>
  parseAllDocuments(readFileSync(join(current().dir, "bylaw-base.yaml"), "utf8")).map((d) => d.toJS() as Obj);
const renderedOne = (kind: string, name: string): Obj => {
  const found = rendered().find((o) => o.kind === kind && o.metadata?.name === name);
  assert.ok(found !== undefined, `deploy/base renders ${kind} ${name}`);
  return found;
};
const log = (): string => readFileSync(join(current().dir, "logs", "bylaw.log"), "utf8");
const port = (): string => /BYLAW_PORT=(\d+)/.exec(readFileSync(join(current().dir, "bylaw.env"), "utf8"))?.[1] ?? "";

async function readiness(): Promise<{ code: string; body: string }> {
  const r = await run(
    "curl",
    ["-sk", "--max-time", "2", "-w", "\n%{http_code}", `https://127.0.0.1:${port()}/health/readiness`],
    5_000,
  );
  const lines = r.stdout.trimEnd().split("\n");
  return { code: lines.pop() ?? "", body: lines.join("\n") };
}

const restartBylaw = (wait: boolean): Promise<void> => restartBylawIn(current(), { wait });

const REQUIRE_LABELS = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: deploy-rbac-require-team
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: team
      match:
        any:
          - resources:
              kinds: [Pod]
              namespaces: [deploy-rbac]
      validate:
        message: "label team is required"
        pattern:
          metadata:
            labels:
              team: "?*"
`;

describe("Bylaw with exactly the RBAC deploy/ ships", { timeout: buildTimeoutMs + 10 * 60_000 }, () => {
  before(
    async () => {
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true });
      console.log(`# scripts/cluster.sh up --with-bylaw took ${cluster.upSeconds.toFixed(1)} s`);
    },
    { timeout: buildTimeoutMs + 60_000 },
  );

  after(async () => {
    if (cluster === undefined) return;
    const down = await stopCluster(cluster.dir);
    assert.equal(down.code, 0, `scripts/cluster.sh down failed: ${down.stderr}`);
    assert.deepEqual(
      [...cluster.pids].filter(([, pid]) => processRunning(pid)),
      [],
      "every component has exited after down",
    );
    rmSync(cluster.dir, { recursive: true, force: true });
  });

  test("--with-bylaw runs the Deployment's arguments as the bylaw ServiceAccount, bound to the base's grants and no others", async () => {
    const deployment = renderedOne("Deployment", "bylaw") as {
      spec: { template: { spec: { containers: { args: string[] }[] } } };
    };
    const shipped = deployment.spec.template.spec.containers[0]?.args ?? [];
    const pid = readPids(current().dir).get("bylaw");
    assert.ok(pid !== undefined && processRunning(pid), "Bylaw runs");
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    const serve = cmdline.indexOf("serve");
    const asRun = cmdline.slice(serve, serve + shipped.length);
    const expected = shipped.map((a, i) =>
      a === "$(POD_NAMESPACE)"
        ? "bylaw"
        : shipped[i - 1] === "--port" || shipped[i - 1] === "--metrics-port"
          ? asRun[i]
          : a,
    );
    assert.deepEqual(
      asRun,
      expected,
      "the Deployment's arguments, in order (ports chosen free, POD_NAMESPACE expanded)",
    );
    for (const f of ["--cluster", "--register", "--leader-elect", "--tls-secret"]) assert.ok(asRun.includes(f), f);
    const whoami = await run(
      "kubectl",
      ["--kubeconfig", join(current().dir, "bylaw.kubeconfig"), "auth", "whoami", "-o", "json"],
      30_000,
    );
    assert.equal(whoami.code, 0, whoami.stderr);
    const who = JSON.parse(whoami.stdout) as { status?: { userInfo?: { username?: string } } };
    assert.equal(who.status?.userInfo?.username, "system:serviceaccount:bylaw:bylaw", "not an admin");
    for (const [kind, name, ns] of [
      ["ClusterRole", "bylaw:admission-controller:core", []],
      ["Role", "bylaw:admission-controller", ["-n", "bylaw"]],
    ] as const) {
      const live = JSON.parse(await ok(["get", kind.toLowerCase(), name, ...ns, "-o", "json"])) as Obj;
      assert.deepEqual(live.rules, renderedOne(kind, name).rules, `${kind} ${name} holds the base's rules`);
    }
    const bindings = JSON.parse(await ok(["get", "clusterrolebindings,rolebindings", "-A", "-o", "json"])) as {
      items: { metadata: { name: string }; subjects?: { kind: string; name: string; namespace?: string }[] }[];
    };
    const bound = bindings.items
      .filter((b) =>
        (b.subjects ?? []).some((s) => s.kind === "ServiceAccount" && s.name === "bylaw" && s.namespace === "bylaw"),
      )
      .map((b) => b.metadata.name);
    assert.deepEqual(
      bound,
      ["bylaw:admission-controller", "bylaw:admission-controller"],
      "one ClusterRoleBinding and one RoleBinding, the base's",
    );
  });

  test("with those grants it leads, fills the certificate Secret, registers with its CA, writes policy status and enforces, with no request refused", async () => {
    assert.equal((await readiness()).code, "200");
    assert.match(
      await ok(["-n", "bylaw", "get", "lease", "bylaw-admission", "-o", "jsonpath={.spec.holderIdentity}"]),
      /^bylaw-local_/,
    );
    const ca = await ok(["-n", "bylaw", "get", "secret", "bylaw-tls", "-o", "jsonpath={.data.ca\\.crt}"]);
    assert.ok(ca.length > 100, "the leader wrote ca.crt");
    assert.ok(
      (await ok(["-n", "bylaw", "get", "secret", "bylaw-tls", "-o", "jsonpath={.data.tls\\.crt}"])).length > 100,
      "and tls.crt",
    );
    assert.equal(
      await ok([
        "get",
        "validatingwebhookconfiguration",
        "bylaw-policy-validating-webhook-cfg",
        "-o",
        "jsonpath={.webhooks[0].clientConfig.caBundle}",
      ]),
      ca,
      "registered with the Secret's CA",
    );
    await ok(["apply", "-f", "-"], REQUIRE_LABELS);
    await eventually("the policy to be Ready (status written)", 60_000, async () =>
      (await ok([
        "get",
        "cpol",
        "deploy-rbac-require-team",
        "-o",
        "jsonpath={.status.conditions[?(@.type=='Ready')].status}",
      ])) === "True"
        ? true
        : undefined,
    );
    await ok(["create", "namespace", "deploy-rbac"]);
    const denied = await eventually("the unlabeled Pod to be denied", 60_000, async () => {
      const r = await current().kubectl(["-n", "deploy-rbac", "run", "web", "--image=nginx", "--restart=Never"]);
      if (r.code === 0) await ok(["-n", "deploy-rbac", "delete", "pod", "web", "--wait=false"]);
      return r.code !== 0 ? r.stderr : undefined;
    });
    assert.match(denied, /deploy-rbac-require-team/);
    assert.match(denied, /label team is required/);
    await ok(["-n", "deploy-rbac", "run", "web-ok", "--image=nginx", "--restart=Never", "--labels=team=a"]);
    assert.doesNotMatch(log(), /forbidden/i, "no request of Bylaw's was refused");
  });

  test("without the Lease grant it never becomes Ready (no leader fills the Secret), the log names the refused request; with it back, it is Ready again", async () => {
    const role = renderedOne("Role", "bylaw:admission-controller") as Obj & { rules: { resources: string[] }[] };
    const withoutLeases = { ...role, rules: role.rules.filter((r) => !r.resources.includes("leases")) };
    assert.ok(withoutLeases.rules.length < role.rules.length);
    await ok(["replace", "-f", "-"], JSON.stringify(withoutLeases));
    await ok(["-n", "bylaw", "delete", "lease", "bylaw-admission", "--ignore-not-found"]);
    await ok(["-n", "bylaw", "delete", "secret", "bylaw-tls"]);
    await ok(["apply", "--server-side", "-f", "-"], JSON.stringify(renderedOne("Secret", "bylaw-tls")));
    await restartBylaw(false);
    await eventually("the refused Lease request in the log", 60_000, async () =>
      /leases\.coordination\.k8s\.io \\?"bylaw-admission\\?" is forbidden/.test(log()) ? true : undefined,
    );
    await eventually("Bylaw to listen (with a stand-in certificate until the Secret holds one)", 60_000, async () =>
      (await readiness()).code !== "000" ? true : undefined,
    );
    for (let i = 0; i < 10; i++) {
      const r = await readiness();
      assert.equal(r.code, "503", `still not ready (${i} s): ${r.body}`);
      assert.match(r.body, /no serving certificate/);
      await new Promise((res) => setTimeout(res, 1000));
    }
    assert.equal(
      await ok(["-n", "bylaw", "get", "secret", "bylaw-tls", "-o", "jsonpath={.data}"]),
      "",
      "nobody wrote the Secret",
    );

    await ok(["replace", "-f", "-"], JSON.stringify(role));
    await restartBylaw(true);
    assert.equal((await readiness()).code, "200");
  });
});
