/**
 * The labels Kyverno puts on generated objects (Kyverno `pkg/background/common/labels.go`):
 * who manages the object, which policy and rule made it, which trigger caused it and, for clones,
 * which source it copies. Values are cut to 63 characters so they stay valid label values
 * (Kubernetes refuses longer ones; Kyverno trims by length the same way).
 */
import { isObject, type JsonObject } from "../api/json.js";
import {
  parseApiVersion,
  resourceApiVersion,
  resourceKind,
  resourceMetadata,
  resourceNamespace,
  type Resource,
} from "../api/resource.js";
import { setOwn } from "../api/set-own.js";
import { cloneJson } from "../api/json-copy.js";
import type { GenerateInput } from "./types.js";

const MANAGED_BY = "app.kubernetes.io/managed-by";
const LABEL_VALUE_MAX = 63;
const PREFIX = "generate.kyverno.io/";

/** The clone source as the labels describe it. */
export interface SourceInfo {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly uid: string;
}

export function truncateLabelValue(v: string): string {
  return v.length > LABEL_VALUE_MAX ? v.slice(0, LABEL_VALUE_MAX) : v;
}

export function generateLabels(
  input: Pick<GenerateInput, "policy" | "rule" | "trigger">,
  source?: SourceInfo,
): Record<string, string> {
  const trigger = input.trigger;
  const tgv = parseApiVersion(resourceApiVersion(trigger));
  const entries: [string, string][] = [
    [MANAGED_BY, "kyverno"],
    [`${PREFIX}policy-name`, input.policy.name],
    [`${PREFIX}policy-namespace`, input.policy.kind === "Policy" ? input.policy.namespace : ""],
    [`${PREFIX}rule-name`, input.rule],
    [`${PREFIX}trigger-group`, tgv.group],
    [`${PREFIX}trigger-version`, tgv.version],
    [`${PREFIX}trigger-kind`, resourceKind(trigger)],
    [`${PREFIX}trigger-namespace`, resourceNamespace(trigger)],
    [`${PREFIX}trigger-uid`, uidOf(trigger)],
  ];
  if (source !== undefined) {
    const sgv = parseApiVersion(source.apiVersion);
    entries.push(
      [`${PREFIX}clone-source`, ""],
      [`${PREFIX}source-group`, sgv.group],
      [`${PREFIX}source-version`, sgv.version],
      [`${PREFIX}source-kind`, source.kind],
      [`${PREFIX}source-namespace`, source.namespace],
    );
    if (source.uid !== "") entries.push([`${PREFIX}source-uid`, source.uid]);
  }
  const out: Record<string, string> = {};
  for (const [k, v] of entries) setOwn(out, k, truncateLabelValue(v));
  return out;
}

/**
 * The labels on what a GeneratingPolicy generates, as Kyverno's CEL generator sets them
 * (`pkg/cel/libs/context.go` addGenerateLabels): managed-by, the policy's name and the trigger's
 * name, namespace, uid, kind, group and version; no rule name (the policy has one body). Bylaw adds
 * `policy-namespace` for a namespaced policy only: without it a tenant's NamespacedGeneratingPolicy
 * named like a cluster-wide one would own (and, deleted, delete) that one's objects in its namespace.
 */
export function generatingLabels(input: {
  readonly policyName: string;
  readonly policyNamespace: string;
  readonly trigger: Resource;
}): Record<string, string> {
  const trigger = input.trigger;
  const tgv = parseApiVersion(resourceApiVersion(trigger));
  const name = resourceMetadata(trigger)["name"];
  const entries: [string, string][] = [
    [MANAGED_BY, "kyverno"],
    [`${PREFIX}policy-name`, input.policyName],
    ...(input.policyNamespace !== "" ? [[`${PREFIX}policy-namespace`, input.policyNamespace] as [string, string]] : []),
    [`${PREFIX}trigger-name`, typeof name === "string" ? name : ""],
    [`${PREFIX}trigger-namespace`, resourceNamespace(trigger)],
    [`${PREFIX}trigger-uid`, uidOf(trigger)],
    [`${PREFIX}trigger-kind`, resourceKind(trigger)],
    [`${PREFIX}trigger-group`, tgv.group],
    [`${PREFIX}trigger-version`, tgv.version],
  ];
  const out: Record<string, string> = {};
  for (const [k, v] of entries) setOwn(out, k, truncateLabelValue(v));
  return out;
}

export function uidOf(r: Resource): string {
  const uid = resourceMetadata(r)["uid"];
  return typeof uid === "string" ? uid : "";
}

/**
 * Merge Kyverno's labels into a copy of `resource`. The object's own labels stay, Kyverno's win on
 * a clash, except that an existing `app.kubernetes.io/managed-by` naming another manager is kept
 * (Kyverno does not override it). Returns the object and the labels Kyverno actually set.
 */
export function applyLabels(
  resource: Resource,
  kyverno: Readonly<Record<string, string>>,
): { toApply: Resource; labels: Record<string, string> } {
  const toApply = cloneJson(resource);
  const meta = isObject(toApply["metadata"]) ? toApply["metadata"] : ({} as JsonObject);
  if (!isObject(toApply["metadata"])) setOwn(toApply, "metadata", meta);
  const existing = isObject(meta["labels"]) ? meta["labels"] : ({} as JsonObject);
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(kyverno)) {
    const mine = existing[k];
    if (k === MANAGED_BY && mine !== undefined && mine !== v) continue;
    setOwn(labels, k, v);
  }
  const merged: JsonObject = { ...existing };
  for (const [k, v] of Object.entries(labels)) setOwn(merged, k, v);
  setOwn(meta, "labels", merged);
  return { toApply, labels };
}
