/**
 * A mutate-existing MutatingPolicy's targets for one trigger (Kyverno 1.19's background mpol
 * processor): every object of the resources its target constraints name (targetMatchConstraints'
 * resourceRules, else matchConstraints') is listed through the `ExistingResources` port (a
 * namespaced policy's in its namespace only), decided against those constraints (namespaceSelector
 * on the target's Namespace, objectSelector, excludeResourceRules), then run with `object` the
 * target and `request` the trigger's admission request: targetMatchConditions instead of the
 * matchConditions, then the mutations. Each target answers one result named "" carrying the patched
 * target; a resource Bylaw cannot name a kind for, or a listing that fails, is an `error` naming it.
 * With `targetMatchConstraints.expression`, the targets are the objects it names instead.
 */
import { isObject } from "../../api/json.js";
import {
  parseApiVersion,
  resourceApiVersion,
  resourceKind,
  resourceLabels,
  resourceName,
  resourceNamespace,
  type Resource,
} from "../../api/resource.js";
import { ruleResult, type RuleResult } from "../../api/rule-result.js";
import { err, ok, type Result } from "../../api/result.js";
import type { CompiledCelException } from "../../exceptions/cel/index.js";
import type { ExistingResources } from "../../generate/types.js";
import type { MatchRequest } from "../../match/index.js";
import type { CelServices } from "../kyverno/index.js";
import type { CelRuleInput } from "../validate-rule/index.js";
import { kindOfResource, resourceOfKind } from "../validating-policy/resource-names.js";
import { fromCel, toCel } from "../values.js";
import { policyActivation } from "../lazy-variables.js";
import { RUNTIME_COST_BUDGET, type CelProgram, type CostBudget } from "../types.js";
import type { CompiledMutatingBody, CompiledTargets } from "./compiled.js";
import { evaluateBody, NO_EXCEPTIONS } from "./evaluate.js";

/** The trigger the targets are found for. */
export interface TargetTrigger {
  /** The trigger's CEL input: its `request` is what every target sees. */
  readonly input: CelRuleInput;
  /** The trigger's request, for its operation and user. */
  readonly req: MatchRequest;
  readonly exceptions: readonly CompiledCelException[];
}

function error(message: string): RuleResult {
  return ruleResult("", "Mutation", "error", message);
}

/** Each resource rule's group, version and resource (subresources name their parent), once. */
function resourcesOf(targets: CompiledTargets): { group: string; version: string; resource: string }[] {
  const out = new Map<string, { group: string; version: string; resource: string }>();
  for (const rule of targets.constraints.resourceRules?.include ?? [])
    for (const group of rule.groups)
      for (const version of rule.versions)
        for (const written of rule.resources) {
          const resource = written.split("/")[0] ?? written;
          out.set(`${group}/${version}/${resource}`, { group, version, resource });
        }
  return [...out.values()];
}

export function evaluateTargets(
  body: CompiledMutatingBody & { readonly existing: CompiledTargets },
  trigger: TargetTrigger,
  existing: ExistingResources,
  services: CelServices,
): RuleResult[] {
  const namespaces = new Map<string, Resource | undefined>();
  const namespaceOf = (name: string): Resource | undefined => {
    if (!namespaces.has(name)) {
      const got = existing.get("v1", "Namespace", "", name);
      namespaces.set(name, got.ok ? got.value : undefined);
    }
    return namespaces.get(name);
  };
  if (body.existing.expression !== undefined)
    return expressionTargets(body, { trigger, existing, services, namespaceOf, expression: body.existing.expression });
  const results: RuleResult[] = [];
  const seen = new Set<string>();
  for (const { group, version, resource } of resourcesOf(body.existing)) {
    const apiVersion = group === "" ? version : `${group}/${version}`;
    if (group === "*" || version === "*" || resource === "*") {
      results.push(
        error(
          `mutate-existing targets: resource rule ${apiVersion} ${resource}: Bylaw does not list wildcard resources for mutate-existing targets; name the group, version and resource`,
        ),
      );
      continue;
    }
    const kind = listedKind(existing, apiVersion, resource);
    if (!kind.ok) {
      results.push(error(kind.error.message));
      continue;
    }
    const listed = existing.list(apiVersion, kind.value, trigger.req.policyNamespace);
    if (!listed.ok) {
      results.push(error(`failed to fetch targets ${apiVersion} ${kind.value}: ${listed.error.message}`));
      continue;
    }
    for (const item of listed.value) {
      const target: Resource = { ...item, apiVersion, kind: kind.value };
      const key = `${apiVersion}/${kind.value}/${resourceNamespace(target)}/${resourceName(target)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const result = evaluateTarget(
        body,
        { target, gvk: { group, version, kind: kind.value, resource }, namespaceOf },
        trigger,
        services,
      );
      if (result !== undefined) results.push(result);
    }
  }
  return results;
}

/** A resource's kind: a built-in one's, else what the cluster serves (the port's discovery), else undefined. */
function kindOf(existing: ExistingResources, apiVersion: string, resource: string): Result<string | undefined> {
  const builtIn = kindOfResource(resource);
  if (builtIn !== undefined || existing.kindOf === undefined) return ok(builtIn);
  return existing.kindOf(apiVersion, resource);
}

/** The kind whose objects a target resource rule lists, or the error naming why none can be. */
function listedKind(existing: ExistingResources, apiVersion: string, resource: string): Result<string> {
  const kind = kindOf(existing, apiVersion, resource);
  if (!kind.ok)
    return err(kind.error.kind, `mutate-existing targets: resource ${resource} (${apiVersion}): ${kind.error.message}`);
  if (kind.value === undefined)
    return err(
      "unsupported",
      `mutate-existing targets: resource ${resource} (${apiVersion}) is neither a built-in resource nor one the cluster serves, so its objects were not listed`,
    );
  return ok(kind.value);
}

/** A kind's resource, the same way round. */
function resourceOf(existing: ExistingResources, apiVersion: string, kind: string): Result<string | undefined> {
  const builtIn = resourceOfKind(kind);
  if (builtIn !== undefined || existing.resourceOf === undefined) return ok(builtIn);
  return existing.resourceOf(apiVersion, kind);
}

/**
 * The targets `targetMatchConstraints.expression` names for the trigger (tenant-isolation.md rule
 * 5: what CEL returns is an identifier): each object is read again by apiVersion, kind, namespace
 * and name (one that is not there is skipped), a namespaced policy's only in its own namespace, and
 * then decided and patched as a listed target. The expression's value is one object, or a list
 * whose `items` are the objects (what `resource.List` returns).
 */
function expressionTargets(
  body: CompiledMutatingBody & { readonly existing: CompiledTargets },
  run: {
    readonly trigger: TargetTrigger;
    readonly existing: ExistingResources;
    readonly services: CelServices;
    readonly namespaceOf: (name: string) => Resource | undefined;
    readonly expression: CelProgram;
  },
): RuleResult[] {
  const { trigger, existing, services } = run;
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const activation = policyActivation(body.variables, trigger.input, {
    extra: { exceptions: NO_EXCEPTIONS },
    budget,
    services,
  });
  const r = run.expression.evaluate(activation, budget, services);
  if (!r.ok) return [error(`failed to evaluate spec.targetMatchConstraints.expression: ${r.error.message}`)];
  const value = fromCel(r.value);
  const items = isObject(value) && Array.isArray(value["items"]) ? value["items"] : [value];
  const results: RuleResult[] = [];
  const seen = new Set<string>();
  const policyNamespace = trigger.req.policyNamespace;
  for (const item of items) {
    const id = targetId(item, policyNamespace, existing);
    if ("error" in id) {
      results.push(error(id.error));
      continue;
    }
    const { apiVersion, kind, namespace, name, what, resource } = id;
    const key = `${apiVersion}/${kind}/${namespace}/${name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const { group, version } = parseApiVersion(apiVersion);
    const read = existing.get(apiVersion, kind, namespace, name);
    if (!read.ok) {
      results.push(error(`failed to fetch target ${what}: ${read.error.message}`));
      continue;
    }
    if (read.value === undefined) continue;
    const target: Resource = { ...read.value, apiVersion, kind };
    const result = evaluateTarget(
      body,
      { target, gvk: { group, version, kind, resource }, namespaceOf: run.namespaceOf },
      trigger,
      services,
    );
    if (result !== undefined) results.push(result);
  }
  return results;
}

/** What an object the target expression returned identifies, or why it identifies nothing this policy may write. */
function targetId(
  item: unknown,
  policyNamespace: string,
  existing: ExistingResources,
):
  | { apiVersion: string; kind: string; namespace: string; name: string; what: string; resource: string }
  | { error: string } {
  if (!isObject(item))
    return {
      error: `spec.targetMatchConstraints.expression: item is not a valid Kubernetes object: ${JSON.stringify(item)}`,
    };
  const apiVersion = resourceApiVersion(item);
  const kind = resourceKind(item);
  const name = resourceName(item);
  const namespace = resourceNamespace(item);
  const what = `${apiVersion} ${kind} ${namespace === "" ? name : `${namespace}/${name}`}`;
  if (apiVersion === "" || kind === "" || name === "")
    return {
      error: `spec.targetMatchConstraints.expression: a target needs apiVersion, kind and metadata.name: ${what}`,
    };
  if (policyNamespace !== "" && namespace !== policyNamespace)
    return {
      error: `spec.targetMatchConstraints.expression: target ${what} is outside the policy's namespace ${JSON.stringify(policyNamespace)}: a namespaced policy mutates only its own namespace`,
    };
  const resource = resourceOf(existing, apiVersion, kind);
  if (!resource.ok)
    return { error: `spec.targetMatchConstraints.expression: target ${what}: ${resource.error.message}` };
  if (resource.value === undefined)
    return {
      error: `spec.targetMatchConstraints.expression: target ${what}: ${kind} is neither a built-in kind nor one the cluster serves, so it cannot be matched`,
    };
  return { apiVersion, kind, namespace, name, what, resource: resource.value };
}

function evaluateTarget(
  body: CompiledMutatingBody & { readonly existing: CompiledTargets },
  at: {
    readonly target: Resource;
    readonly gvk: MatchRequest["gvk"];
    readonly namespaceOf: (name: string) => Resource | undefined;
  },
  trigger: TargetTrigger,
  services: CelServices,
): RuleResult | undefined {
  const ns = kindIsNamespace(at.gvk) ? "" : resourceNamespace(at.target);
  const namespace = ns === "" ? undefined : at.namespaceOf(ns);
  const req: MatchRequest = {
    resource: at.target,
    operation: trigger.req.operation,
    gvk: at.gvk,
    subresource: "",
    namespaceLabels: namespace === undefined ? {} : resourceLabels(namespace),
    policyNamespace: trigger.req.policyNamespace,
  };
  const verdict = body.existing.constraints.decide(req);
  if (verdict.kind === "no-match") return undefined;
  if (verdict.kind === "error") return error(`failed to execute matching: ${verdict.message}`);
  const input: CelRuleInput = {
    ...trigger.input,
    object: toCel(at.target),
    oldObject: null,
    namespaceObject: namespace === undefined ? null : toCel(namespace),
  };
  const outcome = evaluateBody(
    body,
    { input, resource: at.target, exceptions: trigger.exceptions, conditions: body.existing.matchConditions },
    services,
  );
  if (outcome.patched === undefined || outcome.result.status !== "pass") return outcome.result;
  return { ...outcome.result, patchedTarget: outcome.patched };
}

function kindIsNamespace(gvk: MatchRequest["gvk"]): boolean {
  return gvk.kind === "Namespace" && gvk.group === "";
}
