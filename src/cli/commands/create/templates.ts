/**
 * The documents `bylaw create` writes, shaped as `kyverno create` makes them (kyverno.io CLI
 * reference: create test, values, user-info, exception, cleanup-policy, metrics-config). Each
 * builder is pure: flags in, one document out.
 */
import type { JsonObject, JsonValue } from "../../../engine/index.js";

const CLI_API = "cli.kyverno.io/v1alpha1";

/** `policy,rule,resource,namespace,kind` (namespace and kind may be empty or left off). */
export interface ExpectedRow {
  readonly policy: string;
  readonly rule: string;
  readonly resource: string;
  readonly namespace: string;
  readonly kind: string;
  readonly result: "pass" | "fail" | "skip";
}

export function testTemplate(o: {
  name: string;
  policies: readonly string[];
  resources: readonly string[];
  values?: string;
  rows: readonly ExpectedRow[];
}): JsonObject {
  return {
    apiVersion: CLI_API,
    kind: "Test",
    metadata: { name: o.name },
    policies: [...o.policies],
    resources: [...o.resources],
    ...(o.values !== undefined ? { variables: o.values } : {}),
    results: o.rows.map((r) => ({
      policy: r.policy,
      rule: r.rule,
      resources: [r.resource],
      ...(r.namespace !== "" ? { namespace: r.namespace } : {}),
      ...(r.kind !== "" ? { kind: r.kind } : {}),
      result: r.result,
    })),
  };
}

interface ValuesInput {
  readonly global: Readonly<Record<string, string>>;
  /** namespace → labels */
  readonly namespaces: ReadonlyArray<{ name: string; labels: Record<string, string> }>;
  readonly rules: ReadonlyArray<{ policy: string; rule: string; values: Record<string, string> }>;
  readonly resources: ReadonlyArray<{ policy: string; resource: string; values: Record<string, string> }>;
}

export function valuesTemplate(v: ValuesInput): JsonObject {
  const policies = new Map<string, { name: string; rules: JsonValue[]; resources: JsonValue[] }>();
  const entry = (name: string) => {
    let p = policies.get(name);
    if (!p) policies.set(name, (p = { name, rules: [], resources: [] }));
    return p;
  };
  for (const r of v.rules) entry(r.policy).rules.push({ name: r.rule, values: r.values });
  for (const r of v.resources) entry(r.policy).resources.push({ name: r.resource, values: r.values });
  return {
    apiVersion: CLI_API,
    kind: "Values",
    metadata: { name: "values" },
    ...(Object.keys(v.global).length > 0 ? { globalValues: { ...v.global } } : {}),
    ...(v.namespaces.length > 0
      ? { namespaceSelector: v.namespaces.map((n) => ({ name: n.name, labels: n.labels })) }
      : {}),
    ...(policies.size > 0
      ? {
          policies: [...policies.values()].map((p) => ({
            name: p.name,
            ...(p.rules.length > 0 ? { rules: p.rules } : {}),
            ...(p.resources.length > 0 ? { resources: p.resources } : {}),
          })),
        }
      : {}),
  };
}

export function userInfoTemplate(o: {
  username?: string;
  groups: readonly string[];
  roles: readonly string[];
  clusterRoles: readonly string[];
}): JsonObject {
  return {
    apiVersion: CLI_API,
    kind: "UserInfo",
    metadata: { name: "user-info" },
    ...(o.clusterRoles.length > 0 ? { clusterRoles: [...o.clusterRoles] } : {}),
    ...(o.roles.length > 0 ? { roles: [...o.roles] } : {}),
    userInfo: {
      ...(o.username !== undefined ? { username: o.username } : {}),
      ...(o.groups.length > 0 ? { groups: [...o.groups] } : {}),
    },
  };
}

/** A `--any`/`--all` filter: `kind=Pod,kind=Deployment,name=test-*,namespace=ns` → a resource filter. */
export function resourceFilter(spec: string): { ok: true; filter: JsonObject } | { ok: false; error: string } {
  const keys: Record<string, string> = {
    kind: "kinds",
    name: "names",
    namespace: "namespaces",
    operation: "operations",
  };
  const out: Record<string, string[]> = {};
  for (const part of spec
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")) {
    const eq = part.indexOf("=");
    const key = eq < 0 ? "" : part.slice(0, eq).trim();
    const field = keys[key];
    if (field === undefined)
      return {
        ok: false,
        error: `${JSON.stringify(part)}: expected kind=, name=, namespace= or operation= (e.g. "kind=Pod,name=test-*")`,
      };
    (out[field] ??= []).push(part.slice(eq + 1).trim());
  }
  if (Object.keys(out).length === 0) return { ok: false, error: `${JSON.stringify(spec)}: an empty resource filter` };
  return { ok: true, filter: { resources: out } };
}

function matchBlock(any: readonly JsonObject[], all: readonly JsonObject[]): JsonObject {
  return { ...(any.length > 0 ? { any: [...any] } : {}), ...(all.length > 0 ? { all: [...all] } : {}) };
}

export function exceptionTemplate(o: {
  name: string;
  namespace?: string;
  background: boolean;
  policyRules: ReadonlyArray<{ policy: string; rules: string[] }>;
  any: readonly JsonObject[];
  all: readonly JsonObject[];
}): JsonObject {
  return {
    apiVersion: "kyverno.io/v2",
    kind: "PolicyException",
    metadata: { name: o.name, ...(o.namespace !== undefined ? { namespace: o.namespace } : {}) },
    spec: {
      background: o.background,
      exceptions: o.policyRules.map((p) => ({ policyName: p.policy, ruleNames: p.rules })),
      match: matchBlock(o.any, o.all),
    },
  };
}

export function cleanupPolicyTemplate(o: {
  name: string;
  namespace?: string;
  schedule: string;
  any: readonly JsonObject[];
  all: readonly JsonObject[];
}): JsonObject {
  return {
    apiVersion: "kyverno.io/v2",
    kind: o.namespace !== undefined ? "CleanupPolicy" : "ClusterCleanupPolicy",
    metadata: { name: o.name, ...(o.namespace !== undefined ? { namespace: o.namespace } : {}) },
    spec: { schedule: o.schedule, match: matchBlock(o.any, o.all) },
  };
}

/** Kyverno's metrics ConfigMap: `data.namespaces` is a JSON string with include/exclude lists. */
export function metricsConfigTemplate(o: {
  name: string;
  namespace: string;
  include: readonly string[];
  exclude: readonly string[];
}): JsonObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: o.name, namespace: o.namespace },
    data: { namespaces: JSON.stringify({ include: o.include, exclude: o.exclude }) },
  };
}
