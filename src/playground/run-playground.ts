/**
 * One playground run: the policies, resources and values file pasted, evaluated as `bylaw apply
 * POLICIES -r RESOURCES -f VALUES` evaluates them (the same compile, the same request per resource
 * and policy, the same mutate → validate → generate order), with no server and no file: pure
 * JavaScript, so it runs in the browser. Invalid input is an error naming the box, the document and
 * the field; a policy that does not compile stops the run, as it fails `bylaw apply`.
 */
import {
  createJsonPatch,
  explanationText,
  isObject,
  type JsonObject,
  type JsonPatchOp,
  reportResult,
  type Resource,
} from "../engine/index.js";
import { compileDocuments } from "../library/compile-documents.js";
import { existingResources } from "../library/existing-resources.js";
import { applyToPayload, explainProcessed, processResource } from "../library/process-resource.js";
import { inDefaultNamespace } from "../platform/default-namespace.js";
import { expandList } from "../platform/expand-list.js";
import { resourceLabel } from "../platform/resource-label.js";
import { requestsFor } from "../platform/offline-values/build-request.js";
import { EMPTY_VALUES, parseValues, type ValuesSpec } from "../platform/offline-values/values-file.js";
import { parseDocuments } from "../platform/yaml/index.js";
import { createPlaygroundEngine } from "./playground-engine.js";
import type { PlaygroundInputs } from "./share-link.js";

/** One rule's result, as a row of `bylaw apply --output-format json`. */
interface PlaygroundRow {
  readonly policy: string;
  readonly rule: string;
  readonly resource: string;
  readonly result: string;
  readonly message: string;
}

export interface CheckedResource {
  /** `Kind/namespace/name`, as `bylaw apply` names it. */
  readonly resource: string;
  readonly rows: readonly PlaygroundRow[];
  /** The JSON Patch every mutate rule made, together (empty: unchanged). */
  readonly patch: readonly JsonPatchOp[];
  readonly patched: Resource;
  /** What generate rules would create. */
  readonly generated: readonly Resource[];
  /** engine.explain's text: why each result is what it is. */
  readonly explanation: string;
}

export interface PlaygroundOutput {
  /** What stops the run, or a part of it: each names the box, the document and the field. */
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  readonly policies: number;
  readonly resources: readonly CheckedResource[];
}

export function runPlayground(inputs: PlaygroundInputs): PlaygroundOutput {
  const errors: string[] = [];
  const warnings: string[] = [];
  const values = valuesOf(inputs.values, errors, warnings);
  const resources = resourcesOf(inputs.resources, errors);
  const engine = createPlaygroundEngine(() => resources);
  const loaded = compileDocuments(parseDocuments(inputs.policies, "policies"), engine);
  errors.push(...loaded.fatal, ...loaded.errors);
  warnings.push(...loaded.warnings);
  if (loaded.compiled.length === 0 && loaded.errors.length === 0)
    errors.push("policies: none given: paste a ClusterPolicy, a Policy or a policies.kyverno.io policy");
  if (resources.length === 0 && errors.length === 0) errors.push("resources: none given: paste a resource to check");
  if (errors.length > 0) return { errors, warnings, policies: loaded.compiled.length, resources: [] };
  const exceptions = loaded.exceptions;
  const request = requestsFor({
    values,
    userInfo: undefined,
    finish: (built) => (exceptions.length === 0 ? built : { ...built, exceptions }),
  });
  const existing = existingResources([]);
  const checked = resources.map((resource): CheckedResource => {
    const processed = processResource(engine, loaded.compiled, resource, request, existing);
    // As `bylaw apply` (Kyverno 1.19's CLI), JSON-mode ValidatingPolicies also run on the resource after mutation, as a raw payload.
    const responses = [
      ...processed.responses,
      ...applyToPayload(engine, loaded.compiled, processed.patched, exceptions),
      ...processed.apart,
    ];
    const rows = responses.flatMap((response) =>
      response.rules.map((rule) => ({
        policy: response.policy.name,
        rule: rule.rule,
        resource: resourceLabel(rule.patchedTarget ?? response.resource),
        result: reportResult(rule.status, response.policy.scored),
        message: rule.message,
      })),
    );
    return {
      resource: resourceLabel(resource),
      rows,
      patch: createJsonPatch(resource, processed.patched),
      patched: processed.patched,
      generated: responses.flatMap((r) => r.rules.flatMap((x) => (x.generated ?? []).map((g) => g.toApply))),
      explanation: explanationText(explainProcessed(engine, processed, request)),
    };
  });
  return { errors, warnings, policies: loaded.compiled.length, resources: checked };
}

function valuesOf(text: string, errors: string[], warnings: string[]): ValuesSpec {
  if (text.trim() === "") return EMPTY_VALUES;
  const docs = parseDocuments(text, "values").filter((d) => d.value !== undefined || d.error !== undefined);
  const doc = docs[0];
  if (doc?.error !== undefined) {
    errors.push(doc.error);
    return EMPTY_VALUES;
  }
  if (docs.length > 1) errors.push("values: give one values file (one document), as `bylaw apply -f` takes");
  const parsed = parseValues(doc?.value ?? null);
  errors.push(...parsed.errors.map((e) => `values: ${e}`));
  warnings.push(...parsed.warnings.map((w) => `values: ${w}`));
  return parsed.values;
}

/** The resources box's objects (a `kind: List`'s items each), in `default` unless given a namespace or cluster-scoped, as `bylaw apply` loads them. */
function resourcesOf(text: string, errors: string[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const d of parseDocuments(text, "resources")) {
    if (d.error !== undefined) errors.push(d.error);
    else if (d.value === undefined || d.value === null) continue;
    else if (!isObject(d.value) || typeof d.value["kind"] !== "string")
      errors.push(
        `resources: document ${d.index + 1}: not a Kubernetes object (it needs apiVersion, kind and metadata)`,
      );
    else for (const r of expandList(d.value)) out.push(inDefaultNamespace(r));
  }
  return out;
}
