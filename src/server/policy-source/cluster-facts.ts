/**
 * The ClusterFacts file: what an AdmissionReview does not carry and a cluster would tell Kyverno,
 * namespace labels (for namespaceSelector) and the RBAC roles bound to users and groups (for
 * match/exclude `roles` / `clusterRoles`). Parsed strictly: an unknown field or a value of the
 * wrong type is an error naming its field path.
 *
 *   apiVersion: bylaw.dev/v1alpha1
 *   kind: ClusterFacts
 *   namespaces:
 *     team-a:
 *       labels: { team: a, env: prod }
 *   users:
 *     alice@example.com:
 *       roles: ["team-a:developer"]      # namespace:Role, from RoleBindings
 *       clusterRoles: ["view"]           # from ClusterRoleBindings
 *   groups:
 *     system:serviceaccounts:ci:
 *       clusterRoles: ["edit"]
 *
 * An entry may be empty (`prod:` with nothing under it).
 * Every listed namespace also carries `kubernetes.io/metadata.name: <name>`, as the API server sets
 * it (an explicit value in the file wins). An unlisted namespace's labels are unknown.
 */
import {
  isObject,
  type JsonObject,
  type JsonValue,
  type PolicyProblem,
  problem,
  type RequestUserInfo,
} from "../../engine/index.js";
import type { ClusterFacts } from "../types.js";

const CLUSTER_FACTS_API_VERSION = "bylaw.dev/v1alpha1";
const CLUSTER_FACTS_KIND = "ClusterFacts";
const NAME_LABEL = "kubernetes.io/metadata.name";

interface RoleBindings {
  readonly roles: readonly string[];
  readonly clusterRoles: readonly string[];
}

export interface ClusterFactsData {
  readonly namespaces: ReadonlyMap<string, Readonly<Record<string, string>>>;
  readonly users: ReadonlyMap<string, RoleBindings>;
  readonly groups: ReadonlyMap<string, RoleBindings>;
}

export const EMPTY_FACTS: ClusterFactsData = { namespaces: new Map(), users: new Map(), groups: new Map() };

type ParsedFacts = { ok: true; facts: ClusterFactsData } | { ok: false; problems: PolicyProblem[] };

export function parseClusterFacts(doc: JsonValue): ParsedFacts {
  const problems: PolicyProblem[] = [];
  if (!isObject(doc)) return { ok: false, problems: [problem("", "a ClusterFacts document must be a mapping")] };
  if (doc["apiVersion"] !== CLUSTER_FACTS_API_VERSION) {
    problems.push(
      problem("apiVersion", `must be ${CLUSTER_FACTS_API_VERSION}, got ${JSON.stringify(doc["apiVersion"] ?? null)}`),
    );
  }
  if (doc["kind"] !== CLUSTER_FACTS_KIND)
    problems.push(problem("kind", `must be ${CLUSTER_FACTS_KIND}, got ${JSON.stringify(doc["kind"] ?? null)}`));
  unknownFields(doc, ["apiVersion", "kind", "metadata", "namespaces", "users", "groups"], "", problems);
  if (doc["metadata"] !== undefined && !isObject(doc["metadata"]))
    problems.push(problem("metadata", "must be a mapping"));
  const namespaces = new Map<string, Readonly<Record<string, string>>>();
  for (const [name, entry] of entries(doc, "namespaces", "", problems)) {
    const path = member("namespaces", name);
    if (entry === null) {
      namespaces.set(name, { [NAME_LABEL]: name });
      continue;
    }
    if (!isObject(entry)) {
      problems.push(problem(path, "must be a mapping with `labels`"));
      continue;
    }
    unknownFields(entry, ["labels"], path, problems);
    const labels = new Map<string, string>([[NAME_LABEL, name]]);
    for (const [key, value] of entries(entry, "labels", path, problems)) {
      if (typeof value === "string") labels.set(key, value);
      else
        problems.push(
          problem(member(`${path}.labels`, key), `a label value must be a string, got ${describe(value)} (quote it)`),
        );
    }
    namespaces.set(name, Object.fromEntries(labels));
  }
  const users = bindingsOf(doc, "users", problems);
  const groups = bindingsOf(doc, "groups", problems);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, facts: { namespaces, users, groups } };
}

const NO_ROLES: { readonly roles: readonly string[]; readonly clusterRoles: readonly string[] } = Object.freeze({
  roles: Object.freeze([]),
  clusterRoles: Object.freeze([]),
});

/**
 * The ClusterFacts view the admission handlers read. A namespace the facts do not list has unknown
 * labels (undefined): a rule that selects by them cannot be evaluated (admission/namespace-facts.ts).
 */
export function clusterFactsView(data: ClusterFactsData): ClusterFacts {
  return {
    namespaceLabels: (namespace) => (namespace === "" ? {} : data.namespaces.get(namespace)),
    roles: (user: Pick<RequestUserInfo, "username" | "groups">) => {
      // Most users and groups have no bindings here: one shared answer, without building sets.
      if (!data.users.has(user.username) && !user.groups.some((g) => data.groups.has(g))) return NO_ROLES;
      const roles = new Set<string>();
      const clusterRoles = new Set<string>();
      const add = (b: RoleBindings | undefined): void => {
        b?.roles.forEach((r) => roles.add(r));
        b?.clusterRoles.forEach((r) => clusterRoles.add(r));
      };
      add(data.users.get(user.username));
      for (const g of user.groups) add(data.groups.get(g));
      return { roles: [...roles].sort(), clusterRoles: [...clusterRoles].sort() };
    },
  };
}

/**
 * The facts before a facts file has loaded: every question throws, so that each review is answered
 * per its failurePolicy (an error) instead of being evaluated with no labels and no roles.
 */
export function unloadedFacts(file: string, reason: () => string | undefined): ClusterFacts {
  const fail = (): never => {
    const why = reason();
    throw new Error(
      `the cluster facts (${file}) have not loaded${why !== undefined ? ` (${why})` : ""}; no review can be evaluated without them`,
    );
  };
  return { namespaceLabels: fail, roles: fail };
}

function bindingsOf(doc: JsonObject, field: "users" | "groups", problems: PolicyProblem[]): Map<string, RoleBindings> {
  const out = new Map<string, RoleBindings>();
  for (const [name, entry] of entries(doc, field, "", problems)) {
    const path = member(field, name);
    if (entry === null) continue;
    if (!isObject(entry)) {
      problems.push(problem(path, "must be a mapping with `roles` and/or `clusterRoles`"));
      continue;
    }
    unknownFields(entry, ["roles", "clusterRoles"], path, problems);
    const roles = strings(entry, "roles", path, problems);
    roles.forEach((r, i) => {
      const colon = r.indexOf(":");
      if (colon <= 0 || colon === r.length - 1)
        problems.push(problem(`${path}.roles[${i}]`, `a role must read "namespace:name", got ${JSON.stringify(r)}`));
    });
    const clusterRoles = strings(entry, "clusterRoles", path, problems);
    clusterRoles.forEach((r, i) => {
      if (r === "") problems.push(problem(`${path}.clusterRoles[${i}]`, "a ClusterRole name must not be empty"));
    });
    out.set(name, { roles, clusterRoles });
  }
  return out;
}

/** The entries of an optional mapping field (absent or null means none). */
function entries(obj: JsonObject, field: string, parent: string, problems: PolicyProblem[]): [string, JsonValue][] {
  const value = obj[field];
  if (value === undefined || value === null) return [];
  if (!isObject(value)) {
    problems.push(problem(join(parent, field), `must be a mapping, got ${describe(value)}`));
    return [];
  }
  const out = Object.entries(value);
  for (const [key] of out) if (key === "") problems.push(problem(join(parent, field), "a name must not be empty"));
  return out.filter(([key]) => key !== "");
}

function strings(obj: JsonObject, field: string, parent: string, problems: PolicyProblem[]): string[] {
  const value = obj[field];
  if (value === undefined || value === null) return [];
  const path = join(parent, field);
  if (!Array.isArray(value)) {
    problems.push(problem(path, `must be a list of strings, got ${describe(value)}`));
    return [];
  }
  const out: string[] = [];
  value.forEach((v, i) => {
    if (typeof v === "string") out.push(v);
    else problems.push(problem(`${path}[${i}]`, `must be a string, got ${describe(v)}`));
  });
  return out;
}

function unknownFields(obj: JsonObject, known: readonly string[], parent: string, problems: PolicyProblem[]): void {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key))
      problems.push(problem(join(parent, key), `unknown field; expected one of ${known.join(", ")}`));
  }
}

/** `parent.name`, or `parent["name"]` when the name has dots or other punctuation. */
function member(parent: string, name: string): string {
  return /^[A-Za-z0-9_-]+$/.test(name) ? `${parent}.${name}` : `${parent}[${JSON.stringify(name)}]`;
}

function join(parent: string, field: string): string {
  return parent === "" ? field : `${parent}.${field}`;
}

function describe(v: JsonValue): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  return `${typeof v} ${JSON.stringify(v)}`;
}
