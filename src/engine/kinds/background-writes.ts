/**
 * What a policy makes Bylaw's background controller do on its author's behalf, read from the
 * compiled policy whatever its kind (tenant-isolation.md rule 4: authorise as the author): the
 * objects its generate rules write (each target, each `cloneList` kind, `foreach` entries included)
 * and the sources they clone, the targets its mutate-existing rules patch, and for the CEL kinds
 * the resources a mutate-existing MutatingPolicy's target constraints name and, since a
 * GeneratingPolicy's outputs are computed at run time, every resource in its scope.
 *
 * The cleanup controller acts for the author too: `cleanupDeletes` is what a cleanup policy (a
 * kyverno.io CleanupPolicy or ClusterCleanupPolicy, a DeletingPolicy or NamespacedDeletingPolicy)
 * makes it list and delete.
 *
 * A namespace written with a variable is every namespace for a cluster-wide policy (any
 * substitution may name any of them); a namespaced policy acts only in its own namespace. A kind
 * written with a variable is every resource. A name with a variable is every object.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import { kyvernoRulesOf, type CompiledPolicy } from "../policy/compiled-policy.js";
import type { CompiledCleanupPolicy } from "../cleanup/cleanup-policy.js";

/** What is written: a kind as a kyverno.io rule names it (`v1/ConfigMap`), or a resource as a CEL resource rule does ("*" for any). */
export type WrittenThing =
  | { readonly by: "kind"; readonly kind: string }
  | { readonly by: "resource"; readonly group: string; readonly resource: string };

export interface BackgroundWrite {
  /** The field that asks for it (`spec.rules[0].generate.clone`). */
  readonly path: string;
  readonly what: WrittenThing;
  readonly verbs: readonly string[];
  /** "" for every namespace (or a cluster-scoped kind). */
  readonly namespace: string;
  /** One object's name; absent for every object. */
  readonly name?: string;
}

/** What the background controller does to what a generate rule writes (Kyverno's `canIGenerate` asks the same four). */
const GENERATE_VERBS: readonly string[] = Object.freeze(["create", "update", "get", "delete"]);
const CLONE_VERBS: readonly string[] = Object.freeze(["get"]);
const CLONE_LIST_VERBS: readonly string[] = Object.freeze(["get", "list"]);
const MUTATE_VERBS: readonly string[] = Object.freeze(["get", "update"]);
const ANY_RESOURCE: WrittenThing = Object.freeze({ by: "resource", group: "*", resource: "*" });

export function backgroundWrites(policy: CompiledPolicy): BackgroundWrite[] {
  const out: BackgroundWrite[] = [];
  const scope = (written: string): string => (policy.namespace !== "" ? policy.namespace : (fixed(written) ?? ""));
  if (policy.language === "generating")
    out.push({ path: "spec.generate", what: ANY_RESOURCE, verbs: GENERATE_VERBS, namespace: policy.namespace });
  if (policy.language === "mutating")
    for (const body of policy.mutating)
      for (const rule of body.existing?.constraints.resourceRules?.include ?? [])
        for (const group of rule.groups)
          for (const written of rule.resources)
            out.push({
              path: "spec.targetMatchConstraints",
              what: { by: "resource", group, resource: written.split("/")[0] ?? written },
              verbs: MUTATE_VERBS,
              namespace: policy.namespace,
            });
  kyvernoRulesOf(policy).forEach((rule, i) => {
    const at = `spec.rules[${i}]`;
    if (isObject(rule.generate)) {
      const generate = rule.generate;
      const entries = Array.isArray(generate["foreach"]) ? generate["foreach"].filter(isObject) : [generate];
      entries.forEach((entry, j) =>
        out.push(...generateWrites(entry, `${at}.generate${foreachAt(generate, j)}`, scope)),
      );
    }
    if (isObject(rule.mutate) && Array.isArray(rule.mutate["targets"]))
      rule.mutate["targets"].forEach((t, j) => {
        if (!isObject(t)) return;
        out.push({
          path: `${at}.mutate.targets[${j}]`,
          what: kindOf(text(t["apiVersion"]), text(t["kind"])),
          verbs: MUTATE_VERBS,
          namespace: scope(text(t["namespace"])),
          ...named(text(t["name"])),
        });
      });
  });
  return out;
}

function foreachAt(generate: JsonObject, j: number): string {
  return Array.isArray(generate["foreach"]) ? `.foreach[${j}]` : "";
}

function generateWrites(entry: JsonObject, path: string, scope: (written: string) => string): BackgroundWrite[] {
  const out: BackgroundWrite[] = [];
  const namespace = scope(text(entry["namespace"]));
  const cloneList = isObject(entry["cloneList"]) ? entry["cloneList"] : undefined;
  if (cloneList !== undefined) {
    const from = scope(text(cloneList["namespace"]));
    for (const k of Array.isArray(cloneList["kinds"]) ? cloneList["kinds"] : []) {
      if (typeof k !== "string" || k === "") continue;
      const what = kindOf("", k);
      out.push({ path, what, verbs: GENERATE_VERBS, namespace });
      out.push({ path: `${path}.cloneList`, what, verbs: CLONE_LIST_VERBS, namespace: from });
    }
    return out;
  }
  const what = kindOf(text(entry["apiVersion"]), text(entry["kind"]));
  out.push({ path, what, verbs: GENERATE_VERBS, namespace });
  const clone = isObject(entry["clone"]) ? entry["clone"] : undefined;
  if (clone !== undefined)
    out.push({
      path: `${path}.clone`,
      what,
      verbs: CLONE_VERBS,
      namespace: scope(text(clone["namespace"])),
      ...named(text(clone["name"])),
    });
  return out;
}

/** What the cleanup controller does to what a cleanup policy matches: finds it, then deletes it. */
const DELETE_VERBS: readonly string[] = Object.freeze(["list", "delete"]);

/**
 * What a cleanup policy makes the cleanup controller do on its author's behalf: list and delete each
 * kind its match names (a kyverno.io cleanup policy's `match` kinds, a DeletingPolicy's
 * `matchConstraints.resourceRules`), in its own namespace, or every namespace for a cluster-wide one.
 * Any other policy: nothing.
 */
export function cleanupDeletes(policy: CompiledCleanupPolicy | CompiledPolicy): BackgroundWrite[] {
  if ("kinds" in policy)
    return policy.kinds.map((k) => ({
      path: "spec.match",
      what: kindOf("", k),
      verbs: DELETE_VERBS,
      namespace: policy.namespace,
    }));
  if (policy.language !== "deleting") return [];
  return policy.deleting.resourceRules.flatMap((rule) =>
    rule.groups.flatMap((group) =>
      rule.resources.map((resource) => ({
        path: "spec.matchConstraints.resourceRules",
        what: { by: "resource" as const, group, resource: resource.split("/")[0] ?? resource },
        verbs: DELETE_VERBS,
        namespace: policy.namespace,
      })),
    ),
  );
}

/** A kind as a kyverno.io rule writes it; with a variable in it, any resource. */
function kindOf(apiVersion: string, kind: string): WrittenThing {
  if (kind === "" || hasVariable(kind) || hasVariable(apiVersion)) return ANY_RESOURCE;
  return { by: "kind", kind: apiVersion === "" || kind.includes("/") ? kind : `${apiVersion}/${kind}` };
}

function named(name: string): { name?: string } {
  return fixed(name) === undefined || name === "" ? {} : { name };
}

/** The text when it holds no variable. */
function fixed(written: string): string | undefined {
  return hasVariable(written) ? undefined : written;
}

function hasVariable(s: string): boolean {
  return s.includes("{{");
}

function text(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}
