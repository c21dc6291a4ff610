/**
 * Every policy the shipped manifests give `bylaw serve` is reachable: for each kustomization and
 * component in deploy/ (a component rendered on top of the base), as `kubectl kustomize` renders
 * it, each ClusterPolicy and Policy it installs (and, in folder mode, each policy file of the
 * bylaw-policies ConfigMap), plus a probe policy of each failurePolicy that an
 * operator could add, is served (by the server's own routing) on a path that a registered webhook
 * calls with the policy's failurePolicy and timeout. A policy served on a path no webhook calls
 * would never run: a Pod it forbids would be allowed. When the Deployment registers its webhooks
 * (--register), the webhooks checked are the ones registration builds for that policy set.
 */
import { kyvernoCompiledRules } from "../../src/engine/index.js";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, describe, test } from "node:test";
import { parse } from "yaml";
import {
  type CompiledPolicy,
  createEngine,
  hasValidateRules,
  isMutateExisting,
  type JsonObject,
} from "../../src/engine/index.js";
import { parseDocuments, type LoadedDocument } from "../../src/platform/yaml/index.js";
import { compilePolicySet, describeProblem } from "../../src/server/policy-source/compile-policy-set.js";
import { appliesAtAdmission, failurePolicyOf, servedBy } from "../../src/server/admission/policy-traits.js";
import {
  groupOf,
  groupPath,
  timeoutProblems,
  type TimeoutGroups,
  type WebhookKind,
} from "../../src/server/admission/webhook-groups.js";
import { admissionRoutes } from "../../src/server/app/start-servers.js";
import { buildConfigurations } from "../../src/server/registration/build-configurations.js";
import type { Webhook } from "../../src/controllers/registration/types.js";
import { fakeDeps } from "../support/fake-admission-deps.js";
import { fakePorts } from "../support/fake-ports.js";
import { podOf } from "./manifest-checks.js";
import { at, byKind, kubectlMissing, list, render, repoRoot, type Manifest } from "./render.js";

const SKIP = kubectlMissing();
const root = repoRoot();
const engine = createEngine(fakePorts());

/** Policies an operator may add to the ConfigMap with the default timeout: each must be reachable too. */
const PROBES: JsonObject[] = ["Fail", "Ignore"].flatMap((failurePolicy) => [
  probe(`probe-validate-${failurePolicy.toLowerCase()}`, failurePolicy, {
    validate: {
      message: "privileged containers are not allowed",
      pattern: { spec: { containers: [{ "=(securityContext)": { "=(privileged)": false } }] } },
    },
  }),
  probe(`probe-mutate-${failurePolicy.toLowerCase()}`, failurePolicy, {
    mutate: { patchStrategicMerge: { metadata: { labels: { "+(probe)": "yes" } } } },
  }),
]);

function probe(name: string, failurePolicy: string, body: JsonObject): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name },
    spec: {
      validationFailureAction: "Enforce",
      webhookConfiguration: { failurePolicy },
      rules: [{ name: "r", match: { any: [{ resources: { kinds: ["Pod"] } }] }, ...body }],
    },
  };
}

/** Every folder under deploy/ with a kustomization.yaml, and whether it is a Component; not deploy/crds (no webhooks or policies; test/deploy/crds.test.ts). */
function kustomizations(dir: string): { dir: string; component: boolean }[] {
  const out: { dir: string; component: boolean }[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (path === join(root, "deploy", "crds")) continue;
    if (statSync(path).isDirectory()) out.push(...kustomizations(path));
    else if (entry === "kustomization.yaml")
      out.push({
        dir,
        component: (parse(readFileSync(path, "utf8")) as { kind?: string } | null)?.kind === "Component",
      });
  }
  return out;
}

interface Registered {
  readonly kind: WebhookKind;
  readonly name: string;
  readonly path: unknown;
  readonly failurePolicy: unknown;
  readonly timeoutSeconds: unknown;
  readonly service: unknown;
}

function registeredWebhooks(manifests: readonly Manifest[]): Registered[] {
  const of = (kind: WebhookKind, config: string): Registered[] =>
    byKind(manifests, config).flatMap((c) =>
      list(at(c, "webhooks")).map((w) => ({
        kind,
        name: String(at(w, "name")),
        path: at(w, "clientConfig", "service", "path"),
        failurePolicy: at(w, "failurePolicy"),
        timeoutSeconds: at(w, "timeoutSeconds"),
        service: at(w, "clientConfig", "service"),
      })),
    );
  return [...of("mutate", "MutatingWebhookConfiguration"), ...of("validate", "ValidatingWebhookConfiguration")];
}

/** The webhooks `bylaw serve --register` writes for a policy set, in the Service of the base. */
function builtWebhooks(policies: readonly CompiledPolicy[], groups: TimeoutGroups): Registered[] {
  const built = buildConfigurations(policies, groups, {
    endpoint: { kind: "service", name: "bylaw", namespace: "bylaw", port: 443 },
    caPem: "ca",
    ownNamespace: "bylaw",
  });
  const of = (kind: WebhookKind, hooks: readonly Webhook[]): Registered[] =>
    hooks.map((w) => ({
      kind,
      name: w.name,
      path: w.clientConfig.service?.path,
      failurePolicy: w.failurePolicy,
      timeoutSeconds: w.timeoutSeconds,
      service: w.clientConfig.service,
    }));
  return [...of("mutate", built.mutating.webhooks), ...of("validate", built.validating.webhooks)];
}

/** The timeout groups the Deployment's `bylaw serve` arguments declare. */
function groupsOf(args: readonly unknown[]): TimeoutGroups {
  const values = (flag: string): number[] => args.flatMap((a, i) => (a === flag ? [Number(args[i + 1])] : []));
  return { defaultSeconds: values("--timeout-seconds")[0] ?? 10, extra: values("--timeout-group") };
}

/**
 * The policies the server would load, through its own loader: the rendered ClusterPolicy and Policy
 * objects (what `--cluster` watches) and, in folder mode, the files of the bylaw-policies ConfigMap.
 */
function loadedPolicies(manifests: readonly Manifest[], groups: TimeoutGroups): CompiledPolicy[] {
  const map = byKind(manifests, "ConfigMap", "bylaw-policies")[0];
  const data = (at(map, "data") ?? {}) as Record<string, string>;
  const objects = manifests.filter(
    (m) =>
      String(m["apiVersion"]).startsWith("kyverno.io/") && (m["kind"] === "ClusterPolicy" || m["kind"] === "Policy"),
  );
  const documents: LoadedDocument[] = [
    ...Object.entries(data).flatMap(([file, text]) => parseDocuments(text, file)),
    ...objects.flatMap((m) =>
      parseDocuments(JSON.stringify(m), `${String(m["kind"])}/${String(at(m, "metadata", "name"))}`),
    ),
  ];
  const set = compilePolicySet(documents, engine, (p) => timeoutProblems(p, groups));
  assert.ok(set.ok, `the shipped policies load: ${set.ok ? "" : set.problems.map(describeProblem).join("; ")}`);
  return [...set.policies];
}

/** The webhook kinds a policy needs: validate for validate rules, mutate for standard mutate rules. */
function kindsNeeded(policy: CompiledPolicy): WebhookKind[] {
  if (!appliesAtAdmission(policy)) return [];
  const kinds: WebhookKind[] = [];
  if (hasValidateRules(policy)) kinds.push("validate");
  if (kyvernoCompiledRules(policy).some((r) => r.rule.mutate !== undefined && !isMutateExisting(r)))
    kinds.push("mutate");
  return kinds;
}

describe("every policy is reachable through a registered webhook", { skip: SKIP ?? false }, () => {
  const copy = mkdtempSync(join(tmpdir(), "bylaw-reach-"));
  after(() => rmSync(copy, { recursive: true, force: true }));
  if (SKIP === undefined) cpSync(join(root, "deploy"), join(copy, "deploy"), { recursive: true });
  const trees = SKIP === undefined ? kustomizations(join(root, "deploy")) : [];

  test("deploy/ holds the base, the example overlay and the policy-set components", () => {
    const names = trees.map((t) => relative(root, t.dir));
    for (const expected of [
      "deploy/base",
      "deploy/overlays/example",
      "deploy/components/policy-set-pss-restricted",
      "deploy/components/policy-set-pss-restricted/enforce",
    ]) {
      assert.ok(names.includes(expected), `${expected} is checked`);
    }
  });

  trees.forEach((tree, n) => {
    const name = relative(root, tree.dir);
    test(name, () => {
      let dir = tree.dir;
      if (tree.component) {
        dir = join(copy, "deploy", "overlays", `probe-${n}`);
        mkdirSync(dir, { recursive: true });
        const component = relative(dir, join(copy, relative(root, tree.dir)));
        writeFileSync(
          join(dir, "kustomization.yaml"),
          `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../../base]\ncomponents: [${JSON.stringify(component)}]\n`,
        );
      }
      const manifests = render(dir);
      const groups = groupsOf(list(at(podOf(manifests).container, "args")));
      const probes = PROBES.map((doc) => {
        const r = engine.compile(doc);
        if (!r.ok) throw new Error("invalid probe policy");
        return r.policy;
      });
      const policies = [...loadedPolicies(manifests, groups), ...probes];
      // With --register the webhooks are the ones Bylaw writes for these policies (src/server/registration).
      const registers = list(at(podOf(manifests).container, "args")).includes("--register");
      const webhooks = registers ? builtWebhooks(policies, groups) : registeredWebhooks(manifests);
      const routes = admissionRoutes(fakeDeps().deps, groups);
      for (const w of webhooks)
        assert.ok(
          routes.has(String(w.path)),
          `${name}: webhook ${w.name} calls ${String(w.path)}, which bylaw serve serves`,
        );
      for (const policy of policies) {
        const group = groupOf(policy, groups);
        for (const kind of kindsNeeded(policy)) {
          const path = groupPath(kind, group);
          assert.ok(routes.has(path) && servedBy(policy, group), `${name}: ${policy.name} is served on ${path}`);
          const hook = webhooks.find((w) => w.kind === kind && w.path === path);
          assert.ok(
            hook !== undefined,
            `${name}: ${policy.name} (failurePolicy ${failurePolicyOf(policy)}) is served on ${path}, but no ${kind} webhook calls that path; registered: ${webhooks.map((w) => `${w.name} ${String(w.path)}`).join(", ")}`,
          );
          assert.equal(
            hook.failurePolicy,
            failurePolicyOf(policy),
            `${name}: ${hook.name} has ${policy.name}'s failurePolicy`,
          );
          assert.equal(hook.timeoutSeconds, group.timeoutSeconds, `${name}: ${hook.name} has ${policy.name}'s timeout`);
          assert.deepEqual(
            hook.service,
            { name: "bylaw", namespace: "bylaw", path, port: 443 },
            `${name}: ${hook.name} calls the bylaw Service`,
          );
        }
      }
    });
  });
});
