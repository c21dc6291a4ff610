/**
 * charts/bylaw: `helm lint` passes; its defaults render the same objects as the kustomize base and
 * deploy/crds (Helm's own labels aside; the release namespace is not created by the chart); each
 * value renders what the matching kustomize component does; and a setting the chart cannot honour
 * fails the render with a message instead of being ignored.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, describe, test } from "node:test";
import {
  byIdentity,
  helm,
  helmMissing,
  helmTemplate,
  helmTemplateError,
  identity,
  TEST_API_SERVER_CIDR,
} from "./helm.js";
import { at, byKind, flag, kubectlMissing, list, one, render, repoRoot, type Manifest } from "./render.js";

const SKIP = helmMissing() ?? kubectlMissing();
const root = repoRoot();
const chart = join(root, "charts", "bylaw");

/** Renders deploy/base with the given components (paths under deploy/components) and patches. */
function kustomize(components: readonly string[], extra = ""): Manifest[] {
  const dir = mkdtempSync(join(tmpdir(), "bylaw-helm-"));
  try {
    const lines = [
      "apiVersion: kustomize.config.k8s.io/v1beta1",
      "kind: Kustomization",
      "resources:",
      `  - ${relative(dir, join(root, "deploy", "base"))}`,
    ];
    if (components.length > 0)
      lines.push(
        "components:",
        ...components.map((c) => `  - ${relative(dir, join(root, "deploy", "components", c))}`),
      );
    writeFileSync(join(dir, "kustomization.yaml"), `${lines.join("\n")}\n${extra}`);
    return render(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The manifests with the NetworkPolicy's placeholder replaced by TEST_API_SERVER_CIDR. */
function withApiServer(manifests: readonly Manifest[]): Manifest[] {
  return JSON.parse(
    JSON.stringify(manifests).replaceAll("API_SERVER_CIDR_PLACEHOLDER", TEST_API_SERVER_CIDR),
  ) as Manifest[];
}

function sameObject(
  helmRender: readonly Manifest[],
  kustomizeRender: readonly Manifest[],
  kind: string,
  name: string,
): void {
  const want = byIdentity(byKind(kustomizeRender, kind, name));
  const got = byIdentity(byKind(helmRender, kind, name));
  assert.equal(want.size, 1, `kustomize renders ${kind} ${name}`);
  assert.deepEqual(got, want, `${kind} ${name}`);
}

describe("charts/bylaw", { skip: SKIP ?? false }, () => {
  // The base with the API server's addresses set in its NetworkPolicy, as an overlay sets them.
  const base = SKIP === undefined ? withApiServer(render(join(root, "deploy", "base"))) : [];
  const defaults = SKIP === undefined ? helmTemplate() : [];

  test("helm lint --strict passes", () => {
    const out = helm(["lint", "--strict", chart]);
    assert.match(out, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  test("the defaults render the kustomize base's objects, field for field (Helm's labels aside); the namespace is the release's", () => {
    const want = byIdentity(base.filter((m) => m["kind"] !== "Namespace"));
    const got = byIdentity(defaults);
    assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), "the same objects");
    for (const [id, object] of want) assert.deepEqual(got.get(id), object, id);
    for (const m of defaults)
      assert.equal(at(m, "metadata", "labels", "app.kubernetes.io/managed-by"), "Helm", identity(m));
  });

  test("the CRDs are deploy/crds, file for file, and installed before the rest (crds/)", () => {
    const crdFiles = (dir: string): string[] =>
      readdirSync(dir)
        .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")
        .sort();
    assert.deepEqual(crdFiles(join(chart, "crds")), crdFiles(join(root, "deploy", "crds")));
    for (const f of crdFiles(join(root, "deploy", "crds")))
      assert.equal(
        readFileSync(join(chart, "crds", f), "utf8"),
        readFileSync(join(root, "deploy", "crds", f), "utf8"),
        f,
      );
    const rendered = helm([
      "template",
      "bylaw",
      chart,
      "-n",
      "bylaw",
      "--include-crds",
      "--set-json",
      `networkPolicy.apiServerCIDRs=["${TEST_API_SERVER_CIDR}"]`,
    ]);
    const names = [...rendered.matchAll(/^kind: CustomResourceDefinition\n(?:.*\n)*?\s{2}name: (\S+)$/gm)].map(
      (m) => m[1],
    );
    assert.equal(names.length, crdFiles(join(root, "deploy", "crds")).length);
    for (const name of [
      "clusterpolicies.kyverno.io",
      "policies.kyverno.io",
      "policyexceptions.kyverno.io",
      "policyreports.wgpolicyk8s.io",
      "clusterpolicyreports.wgpolicyk8s.io",
    ])
      assert.ok(names.includes(name), name);
  });

  test("tools/sync-chart.mjs --check finds the chart's copies up to date", () => {
    try {
      execFileSync(process.execPath, [join(root, "tools", "sync-chart.mjs"), "--check"], {
        stdio: ["ignore", "pipe", "pipe"],
        encoding: "utf8",
      });
    } catch (e) {
      assert.fail(
        `the chart's copies drifted (run node tools/sync-chart.mjs):\n${String((e as { stderr?: unknown }).stderr ?? e)}`,
      );
    }
  });

  test("admissionController: replicas, resources, tolerations and extra arguments reach the Deployment", () => {
    const resources = { requests: { cpu: "200m", memory: "256Mi" }, limits: { cpu: "2", memory: "512Mi" } };
    const tolerations = [{ key: "dedicated", operator: "Equal", value: "policy", effect: "NoSchedule" }];
    const d = one(
      helmTemplate({
        "admissionController.replicas": 5,
        "admissionController.resources": resources,
        "admissionController.tolerations": tolerations,
        "admissionController.extraArgs": ["--timeout-group", "20"],
      }),
      "Deployment",
      "bylaw",
    );
    assert.equal(at(d, "spec", "replicas"), 5);
    assert.deepEqual(at(d, "spec", "template", "spec", "tolerations"), tolerations);
    const container = at(d, "spec", "template", "spec", "containers", 0);
    assert.deepEqual(at(container, "resources"), resources);
    assert.deepEqual(list(at(container, "args")).slice(-2), ["--timeout-group", "20"]);
    assert.equal(
      at(one(defaults, "Deployment", "bylaw"), "spec", "template", "spec", "tolerations"),
      undefined,
      "no tolerations by default",
    );
  });

  test("image; the webhook configurations are shipped empty for Bylaw to register", () => {
    const out = helmTemplate({ image: { repository: "registry.example/bylaw", tag: "0.1.0", pullPolicy: "Always" } });
    const container = at(one(out, "Deployment", "bylaw"), "spec", "template", "spec", "containers", 0);
    assert.equal(at(container, "image"), "registry.example/bylaw:0.1.0");
    assert.equal(at(container, "imagePullPolicy"), "Always");
    const hooks = [
      ...byKind(out, "MutatingWebhookConfiguration"),
      ...byKind(out, "ValidatingWebhookConfiguration"),
    ].flatMap((c) => list(at(c, "webhooks")));
    assert.equal(hooks.length, 0);
    assert.ok(list(at(container, "args")).includes("--register"));
  });

  test("metrics: the ServiceMonitor and the NodePort Service are the kustomize components'", () => {
    const out = helmTemplate({
      metrics: {
        serviceMonitor: { enabled: true, interval: "30s", scrapeTimeout: "10s" },
        nodePort: { enabled: true, port: 30800 },
      },
    });
    const want = kustomize(["servicemonitor", "metrics-nodeport"]);
    sameObject(out, want, "ServiceMonitor", "bylaw");
    sameObject(out, want, "Service", "bylaw-metrics");
    // With the ServiceMonitor, /metrics needs a token (--metrics-auth token) and the RBAC for it, as in the component.
    sameObject(out, want, "ClusterRole", "bylaw:admission-controller:metrics-auth");
    sameObject(out, want, "ClusterRole", "bylaw:metrics-reader");
    sameObject(out, want, "ClusterRoleBinding", "bylaw:metrics-reader");
    const args = (ms: readonly Manifest[]): unknown[] =>
      list(at(one(ms, "Deployment", "bylaw"), "spec", "template", "spec", "containers", 0, "args"));
    assert.deepEqual(args(want).slice(-2), ["--metrics-auth", "token"]);
    const outArgs = args(out);
    assert.equal(outArgs[outArgs.indexOf("--metrics-auth") + 1], "token");
    assert.ok(!args(defaults).includes("--metrics-auth"), "plain /metrics without the ServiceMonitor");
    const tokenOnly = args(helmTemplate({ "metrics.auth": "token" }));
    assert.equal(tokenOnly[tokenOnly.indexOf("--metrics-auth") + 1], "token");
    assert.deepEqual(byKind(defaults, "ServiceMonitor"), [], "off by default");
    assert.deepEqual(byKind(defaults, "Service", "bylaw-metrics"), [], "off by default");
  });

  test("ui: --ui-port, the Service's ui port and the NetworkPolicy rule are deploy/components/report-ui's; off by default", () => {
    const out = helmTemplate({ ui: { enabled: true, port: 9444, servicePort: 8443, from: [] } });
    const want = withApiServer(kustomize(["report-ui"]));
    sameObject(out, want, "Deployment", "bylaw");
    sameObject(out, want, "Service", "bylaw");
    sameObject(out, want, "NetworkPolicy", "bylaw");
    const args = list(at(one(out, "Deployment", "bylaw"), "spec", "template", "spec", "containers", 0, "args"));
    assert.equal(args[args.indexOf("--ui-port") + 1], "9444");
    const defaultArgs = list(
      at(one(defaults, "Deployment", "bylaw"), "spec", "template", "spec", "containers", 0, "args"),
    );
    assert.ok(!defaultArgs.includes("--ui-port"), "no UI unless asked");
    const ports = list(at(one(defaults, "Service", "bylaw"), "spec", "ports")).map((p) => at(p, "name"));
    assert.deepEqual(ports, ["https", "metrics"]);
    const from = [{ namespaceSelector: { matchLabels: { team: "platform" } } }];
    const limited = helmTemplate({ ui: { enabled: true, port: 9444, servicePort: 8443, from } });
    const rule = list(at(one(limited, "NetworkPolicy", "bylaw"), "spec", "ingress")).find(
      (r) => at(r, "ports", 0, "port") === 9444,
    );
    assert.deepEqual(at(rule, "from"), from);
  });

  test("registration.kyvernoWebhookNames: Kyverno's configuration names, the flag and the grants, as deploy/components/kyverno-webhook-names renders them", () => {
    const out = helmTemplate({ "admissionController.registration.kyvernoWebhookNames": true });
    const want = kustomize(["kyverno-webhook-names"]);
    sameObject(out, want, "ValidatingWebhookConfiguration", "kyverno-resource-validating-webhook-cfg");
    sameObject(out, want, "MutatingWebhookConfiguration", "kyverno-resource-mutating-webhook-cfg");
    sameObject(out, want, "ValidatingWebhookConfiguration", "kyverno-policy-validating-webhook-cfg");
    sameObject(out, want, "ClusterRole", "bylaw:admission-controller:core");
    assert.deepEqual(byKind(out, "ValidatingWebhookConfiguration", "bylaw-resource-validating-webhook-cfg"), []);
    const args = (ms: readonly Manifest[]): unknown[] =>
      list(at(one(ms, "Deployment", "bylaw"), "spec", "template", "spec", "containers", 0, "args"));
    assert.ok(args(out).includes("--kyverno-webhook-names"));
    assert.ok(args(want).includes("--kyverno-webhook-names"));
    assert.ok(!args(defaults).includes("--kyverno-webhook-names"), "Bylaw's own names by default");
  });

  test("networkPolicy: on by default, the base's with the overlay's addresses; the API server's addresses are required", () => {
    const out = helmTemplate({
      networkPolicy: {
        enabled: true,
        apiServerCIDRs: ["192.0.2.0/28"],
        prometheus: { namespace: "monitoring", podLabels: { "app.kubernetes.io/name": "prometheus" } },
        extraMetricsFrom: [{ ipBlock: { cidr: "192.0.2.10/32" } }],
      },
    });
    sameObject(out, render(join(root, "deploy", "overlays", "example")), "NetworkPolicy", "bylaw");
    assert.equal(byKind(defaults, "NetworkPolicy").length, 1, "on by default");
    assert.match(
      helmTemplateError({ "networkPolicy.apiServerCIDRs": [] }) ?? "",
      /networkPolicy\.apiServerCIDRs is required[\s\S]*kubectl get endpointslices[\s\S]*networkPolicy\.enabled=false/,
    );
    assert.deepEqual(
      byKind(helmTemplate({ "networkPolicy.enabled": false, "networkPolicy.apiServerCIDRs": [] }), "NetworkPolicy"),
      [],
      "enabled: false goes without, and needs no addresses",
    );
    const serviceCalls = { to: [{ ipBlock: { cidr: "10.0.0.0/8" } }], ports: [{ port: 8443, protocol: "TCP" }] };
    const withEgress = one(
      helmTemplate({ networkPolicy: { enabled: true, apiServerCIDRs: ["192.0.2.0/28"], extraEgress: [serviceCalls] } }),
      "NetworkPolicy",
      "bylaw",
    );
    const egress = list(at(withEgress, "spec", "egress"));
    assert.deepEqual(
      egress[egress.length - 1],
      serviceCalls,
      "extraEgress is added after the API server rule (apiCall.service calls)",
    );
    assert.equal(egress.length, 2);
  });

  test("policySets: each set in Audit and Enforce mode installs the ClusterPolicies its kustomize component does", () => {
    const policies = (manifests: readonly Manifest[]): Map<string, Manifest> =>
      byIdentity(byKind(manifests, "ClusterPolicy"));
    for (const set of ["pss-baseline", "pss-restricted", "best-practices"]) {
      const audit = policies(kustomize([`policy-set-${set}`]));
      assert.ok(audit.size > 0, set);
      assert.deepEqual(policies(helmTemplate({ policySets: [{ name: set }] })), audit, `${set} (Audit)`);
      assert.deepEqual(
        policies(helmTemplate({ policySets: [{ name: set, mode: "Enforce" }] })),
        policies(kustomize([`policy-set-${set}/enforce`])),
        `${set} (Enforce)`,
      );
    }
    const one_ = helmTemplate({ policySets: [{ name: "best-practices", enforce: ["bp-disallow-latest-tag"] }] });
    assert.deepEqual(
      policies(one_),
      policies(kustomize(["policy-set-best-practices", "policy-set-best-practices/enforce/bp-disallow-latest-tag"])),
    );
    assert.deepEqual(byKind(defaults, "ClusterPolicy"), [], "none by default");
    assert.deepEqual(byKind(defaults, "ConfigMap"), [], "no policy ConfigMap: Bylaw watches the CRDs");
  });

  test("policies: your own ClusterPolicy, Policy and PolicyException YAML, installed as objects", () => {
    const policy = "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata:\n  name: mine\nspec:\n  rules: []\n";
    const exception =
      "apiVersion: kyverno.io/v2\nkind: PolicyException\nmetadata:\n  name: allow-ci\n  namespace: policy-exceptions\nspec:\n  exceptions: []\n";
    const out = helmTemplate({ policies: { "mine.yaml": policy, "allow-ci": exception } });
    assert.deepEqual(one(out, "ClusterPolicy", "mine"), {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "mine" },
      spec: { rules: [] },
    });
    assert.equal(at(one(out, "PolicyException", "allow-ci"), "metadata", "namespace"), "policy-exceptions");
  });

  test("leaderElect, tlsSecret, registration, policyExceptions and egressAllow become `bylaw serve` flags; the Secret and its grant follow tlsSecret", () => {
    const argsOf = (out: readonly Manifest[]): string[] =>
      list(at(one(out, "Deployment", "bylaw"), "spec", "template", "spec", "containers", 0, "args")).map(String);
    const defaultArgs = argsOf(defaults);
    for (const f of ["--cluster", "--register", "--leader-elect"]) assert.ok(defaultArgs.includes(f), f);
    assert.equal(flag(defaultArgs, "--tls-secret"), "bylaw-tls");
    const out = helmTemplate({
      admissionController: {
        replicas: 3,
        resources: {},
        tolerations: [],
        leaderElect: true,
        tlsSecret: "webhook-tls",
        registration: { enabled: true, serverURL: "https://192.0.2.7:9443" },
        policyExceptions: { enabled: true, namespaces: ["policy-exceptions", "platform"] },
        egressAllow: ["10.20.0.0/16"],
        extraArgs: [],
      },
    });
    const args = argsOf(out);
    assert.equal(flag(args, "--tls-secret"), "webhook-tls");
    assert.equal(flag(args, "--server-url"), "https://192.0.2.7:9443");
    assert.ok(args.includes("--enable-policy-exception"));
    assert.deepEqual(
      args.flatMap((a, i) => (a === "--exception-namespace" ? [args[i + 1]] : [])),
      ["policy-exceptions", "platform"],
    );
    assert.equal(flag(args, "--egress-allow"), "10.20.0.0/16");
    one(out, "Secret", "webhook-tls");
    assert.deepEqual(byKind(out, "Secret", "bylaw-tls"), []);
    const secrets = list(at(one(out, "Role", "bylaw:admission-controller"), "rules")).filter((r) =>
      list(at(r, "resources")).includes("secrets"),
    );
    assert.deepEqual(
      secrets.map((r) => at(r, "resourceNames")),
      [["webhook-tls"]],
      "the Role names the Secret Bylaw serves, and no other",
    );
    const noRegister = argsOf(helmTemplate({ "admissionController.registration.enabled": false }));
    assert.ok(!noRegister.includes("--register"));
    const ownCert = helmTemplate({
      "admissionController.tlsSecret": "",
      "admissionController.leaderElect": false,
      "admissionController.extraArgs": ["--self-signed", "--dns-name", "bylaw.bylaw.svc"],
    });
    assert.ok(!argsOf(ownCert).includes("--leader-elect") && !argsOf(ownCert).includes("--tls-secret"));
    assert.deepEqual(byKind(ownCert, "Secret"), [], "no Secret to keep");
    assert.deepEqual(
      list(at(one(ownCert, "Role", "bylaw:admission-controller"), "rules")).filter((r) =>
        list(at(r, "resources")).includes("secrets"),
      ),
      [],
      "and no grant on Secrets",
    );
  });

  test("imagePullSecrets: one --image-pull-secret each and get on exactly those Secrets, as deploy/README.md's kustomize patch renders", () => {
    const readme = readFileSync(join(root, "deploy", "README.md"), "utf8");
    const patch =
      /```yaml\n(# kustomization\.yaml of your overlay: Bylaw reads the docker config Secret regcred[\s\S]*?)```/.exec(
        readme,
      )?.[1];
    assert.ok(patch !== undefined, "deploy/README.md shows the kustomize patch");
    const out = helmTemplate({ "admissionController.imagePullSecrets": ["regcred"] });
    const overlay = kustomize([], patch);
    sameObject(out, overlay, "Deployment", "bylaw");
    sameObject(out, overlay, "Role", "bylaw:admission-controller");
    const args = list(at(one(out, "Deployment", "bylaw"), "spec", "template", "spec", "containers", 0, "args")).map(
      String,
    );
    assert.equal(flag(args, "--image-pull-secret"), "regcred");
    const two = helmTemplate({ "admissionController.imagePullSecrets": ["regcred", "mirror-pull"] });
    const twoArgs = list(at(one(two, "Deployment", "bylaw"), "spec", "template", "spec", "containers", 0, "args")).map(
      String,
    );
    assert.deepEqual(
      twoArgs.flatMap((a, i) => (a === "--image-pull-secret" ? [twoArgs[i + 1]] : [])),
      ["regcred", "mirror-pull"],
    );
    const secrets = list(at(one(two, "Role", "bylaw:admission-controller"), "rules")).filter((r) =>
      list(at(r, "resources")).includes("secrets"),
    );
    assert.deepEqual(
      secrets.map((r) => [at(r, "resourceNames"), at(r, "verbs")]),
      [
        [["bylaw-tls"], ["get", "list", "watch", "update"]],
        [["regcred", "mirror-pull"], ["get"]],
      ],
      "get on the pull secrets only; the certificate Secret's grant is unchanged",
    );
    assert.ok(
      !list(at(one(defaults, "Deployment", "bylaw"), "spec", "template", "spec", "containers", 0, "args")).includes(
        "--image-pull-secret",
      ),
      "none by default",
    );
  });

  test("a setting the chart cannot honour fails the render, naming it", () => {
    assert.match(
      helmTemplateError({ "backgroundController.replica": 2 }) ?? "",
      /replica/,
      "a misspelt controller value is refused, not ignored",
    );
    assert.match(helmTemplateError({ "admissionController.replica": 2 }) ?? "", /replica/);
    assert.match(helmTemplateError({ policySets: [{ name: "pss-strict" }] }) ?? "", /pss-strict|name/);
    assert.match(
      helmTemplateError({ policySets: [{ name: "best-practices", enforce: ["bp-nope"] }] }) ?? "",
      /best-practices has no policy bp-nope/,
    );
    assert.match(
      helmTemplateError({ policySets: [{ name: "best-practices" }], policies: { "bp-require-probes.yaml": "x" } }) ??
        "",
      /bp-require-probes\.yaml is also a policy of a policy set/,
    );
    assert.match(
      helmTemplateError({ policySets: [{ name: "pss-baseline" }, { name: "pss-restricted" }] }) ?? "",
      /pss-baseline and pss-restricted both hold pss-/,
    );
    assert.match(
      helmTemplateError({ clusterFacts: "x" }) ?? "",
      /clusterFacts/,
      "cluster facts are for offline use: in the cluster they come from the API",
    );
    assert.match(
      helmTemplateError({ "admissionController.leaderElect": false }) ?? "",
      /tlsSecret needs admissionController\.leaderElect/,
    );
    assert.match(
      helmTemplateError({ "admissionController.tlsSecret": "" }) ?? "",
      /give the serving certificate in admissionController\.extraArgs/,
    );
    assert.match(
      helmTemplateError({ "admissionController.policyExceptions.enabled": true }) ?? "",
      /policyExceptions\.namespaces/,
    );
    assert.match(helmTemplateError({ "admissionController.egressAllow": ["metadata"] }) ?? "", /egressAllow/);
    assert.match(
      helmTemplateError({ "admissionController.imagePullSecrets": ["ns/regcred"] }) ?? "",
      /imagePullSecrets/,
      "a name in another namespace: the Role could not grant it",
    );
  });
});

describe("charts/bylaw packaging", { skip: SKIP ?? false }, () => {
  const dir = mkdtempSync(join(tmpdir(), "bylaw-helm-package-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("helm package includes the CRDs, RBAC files and policy sets, and the package renders like the folder", () => {
    mkdirSync(dir, { recursive: true });
    const out = helm(["package", chart, "--destination", dir]);
    const archive = /saved it to: (\S+)/.exec(out)?.[1];
    assert.ok(archive !== undefined, out);
    const fromPackage = helm([
      "template",
      "bylaw",
      archive,
      "-n",
      "bylaw",
      "--set-json",
      'policySets=[{"name":"pss-restricted"}]',
      "--set-json",
      `networkPolicy.apiServerCIDRs=["${TEST_API_SERVER_CIDR}"]`,
    ]);
    const fromFolder = helm([
      "template",
      "bylaw",
      chart,
      "-n",
      "bylaw",
      "--set-json",
      'policySets=[{"name":"pss-restricted"}]',
      "--set-json",
      `networkPolicy.apiServerCIDRs=["${TEST_API_SERVER_CIDR}"]`,
    ]);
    assert.equal(fromPackage, fromFolder);
  });
});
