/**
 * The resource criteria of one match/exclude filter (`resources:`), compiled into small checks.
 * Within one description every written attribute must hold (AND); list attributes are OR lists.
 */
import type { LabelSelector, ResourceDescription } from "../api/policy.js";
import type { GroupVersionKind, Resource } from "../api/resource.js";
import {
  resourceAnnotations,
  resourceGenerateName,
  resourceKind,
  resourceLabels,
  resourceName,
  resourceNamespace,
} from "../api/resource.js";
import { hasWildcard, wildcardMatch } from "../values/wildcard.js";
import { compileKindSelector, parseKindSelector } from "./kind-selector.js";
import { evaluateSelector } from "./label-selector.js";
import type { Check, NamedCheck } from "./types.js";

/**
 * Whether a description is the zero value. Like Kyverno (which compares with the Go zero value),
 * an attribute written as an empty list or map still counts as written; `name: ""` does not.
 */
export function isZeroDescription(rd: ResourceDescription | null | undefined): boolean {
  if (rd == null) return true;
  return (
    rd.kinds == null &&
    (rd.name ?? "") === "" &&
    rd.names == null &&
    rd.namespaces == null &&
    rd.annotations == null &&
    rd.selector == null &&
    rd.namespaceSelector == null &&
    rd.operations == null
  );
}

/** Compile a resource description into checks, one per written attribute. */
export function compileResourceChecks(rd: ResourceDescription): NamedCheck[] {
  const checks: NamedCheck[] = [];
  const push = (field: string, holds: Check) => checks.push({ field, holds });
  const kinds = rd.kinds ?? [];
  if (kinds.length > 0) push("kinds", kindCheck(kinds));
  const name = rd.name ?? "";
  if (name !== "") push("name", ({ req }) => wildcardMatch(name, matchedName(req.resource)));
  const names = rd.names ?? [];
  if (names.length > 0) push("names", ({ req }) => anyPatternMatches(names, matchedName(req.resource)));
  const namespaces = rd.namespaces ?? [];
  if (namespaces.length > 0)
    push("namespaces", ({ req }) => anyPatternMatches(namespaces, matchedNamespace(req.resource)));
  const annotations = rd.annotations ?? {};
  if (Object.keys(annotations).length > 0) push("annotations", annotationCheck(annotations));
  if (rd.selector != null) push("selector", selectorCheck(rd.selector));
  if (rd.namespaceSelector != null) push("namespaceSelector", namespaceSelectorCheck(rd.namespaceSelector, kinds));
  const operations = rd.operations ?? [];
  if (operations.length > 0) push("operations", ({ req }) => operations.includes(req.operation));
  return checks;
}

function kindCheck(kinds: readonly string[]): Check {
  const selects = kindSelects(kinds);
  return ({ req }) => selects(req.gvk, req.subresource);
}

/** Whether `kinds` as written select a request's group/version/kind and subresource. */
export function kindSelects(kinds: readonly string[]): (gvk: GroupVersionKind, subresource: string) => boolean {
  const parsed = kinds.map(parseKindSelector);
  const selectors = parsed.map(compileKindSelector);
  // Bare kind names (`Pod`): any group and version, no subresource. A request without a
  // subresource whose kind is one of them is selected by a set lookup.
  const bare = new Set(
    parsed
      .filter((p) => p.group === "*" && p.version === "*" && p.subresource === "" && !hasWildcard(p.kind))
      .map((p) => p.kind),
  );
  return (gvk, subresource) => (subresource === "" && bare.has(gvk.kind)) || selectors.some((s) => s(gvk, subresource));
}

/** Whether one of the wildcard patterns matches `value` (`names`, `namespaces`). */
export function anyPatternMatches(patterns: readonly string[], value: string): boolean {
  for (const p of patterns) if (wildcardMatch(p, value)) return true;
  return false;
}

/** The name `name`/`names` match: metadata.name, or generateName when the object has no name yet. */
export function matchedName(resource: Resource): string {
  const n = resourceName(resource);
  return n !== "" ? n : resourceGenerateName(resource);
}

/** The namespace `namespaces` match: a Namespace's own name, else the object's namespace ("" when cluster-scoped). */
export function matchedNamespace(resource: Resource): string {
  return resourceKind(resource) === "Namespace" ? resourceName(resource) : resourceNamespace(resource);
}

function annotationCheck(expected: Readonly<Record<string, string>>): Check {
  const entries = Object.entries(expected);
  return ({ req }) => {
    const actual = Object.entries(resourceAnnotations(req.resource));
    return entries.every(([k, v]) => actual.some(([ak, av]) => wildcardMatch(k, ak) && wildcardMatch(v, av)));
  };
}

/** A selector that does not parse selects nothing (the policy checker reports it at load). */
function selectorCheck(selector: LabelSelector): Check {
  return ({ req }) => {
    const r = evaluateSelector(selector, resourceLabels(req.resource));
    return r.ok && r.matched;
  };
}

/**
 * namespaceSelector applies to the labels of the resource's namespace. Kyverno does not evaluate
 * it for a Namespace resource, nor for an object without a kind unless the filter lists kind `*`.
 */
function namespaceSelectorCheck(selector: LabelSelector, kinds: readonly string[]): Check {
  return ({ req }) => {
    const kind = resourceKind(req.resource);
    if (kind === "Namespace" || (kind === "" && !kinds.includes("*"))) return true;
    const r = evaluateSelector(selector, req.namespaceLabels);
    return r.ok && r.matched;
  };
}
