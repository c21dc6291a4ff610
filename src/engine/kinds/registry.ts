/**
 * The one kind registry (ADR 0005 §2): every policy kind Bylaw knows, by name, and `classify`, which
 * the CLI, the server, the cluster code and the workers ask what a document is instead of comparing
 * kind strings themselves.
 */
import { isObject, type JsonValue } from "../api/json.js";
import { VALIDATING_ADMISSION_POLICY } from "./admission-policy/kinds.js";
import { GENERATING_POLICY, NAMESPACED_GENERATING_POLICY } from "./generating/kinds.js";
import { CLUSTER_POLICY, NAMESPACED_POLICY } from "./kyverno/kinds.js";
import type { Classification, PolicyKindDescriptor } from "./types.js";
import { nearNames } from "../policy/schema/did-you-mean.js";
import { UNSUPPORTED_KINDS } from "./unsupported/kinds.js";
import { MUTATING_POLICY, NAMESPACED_MUTATING_POLICY } from "./mutating/kinds.js";
import { MUTATING_ADMISSION_POLICY } from "./mutating-admission-policy/kinds.js";
import { NAMESPACED_VALIDATING_POLICY, VALIDATING_POLICY } from "./validating/kinds.js";
import { DELETING_POLICY, NAMESPACED_DELETING_POLICY } from "./deleting/kinds.js";
import { IMAGE_VALIDATING_POLICY, NAMESPACED_IMAGE_VALIDATING_POLICY } from "./image-validating/kinds.js";

/** Every policy kind, in the order the server watches and compiles them (kube/cel-policy-kinds.ts keeps it). */
export const POLICY_KINDS: readonly PolicyKindDescriptor[] = [
  CLUSTER_POLICY,
  NAMESPACED_POLICY,
  VALIDATING_POLICY,
  NAMESPACED_VALIDATING_POLICY,
  VALIDATING_ADMISSION_POLICY,
  MUTATING_POLICY,
  NAMESPACED_MUTATING_POLICY,
  MUTATING_ADMISSION_POLICY,
  IMAGE_VALIDATING_POLICY,
  NAMESPACED_IMAGE_VALIDATING_POLICY,
  GENERATING_POLICY,
  NAMESPACED_GENERATING_POLICY,
  DELETING_POLICY,
  NAMESPACED_DELETING_POLICY,
  ...UNSUPPORTED_KINDS,
];

const BY_NAME: ReadonlyMap<string, PolicyKindDescriptor> = new Map(POLICY_KINDS.map((k) => [k.kind, k]));

const BINDINGS: ReadonlyMap<string, "ValidatingAdmissionPolicy" | "MutatingAdmissionPolicy"> = new Map([
  ["ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicy"],
  ["MutatingAdmissionPolicyBinding", "MutatingAdmissionPolicy"],
] as const);

/** The descriptor of a policy kind by its name; undefined for a name that is no policy kind. */
export function kindDescriptor(kind: string): PolicyKindDescriptor | undefined {
  return BY_NAME.get(kind);
}

/**
 * What a document is: a policy of a known kind (kyverno.io ClusterPolicy/Policy only under a
 * kyverno.io apiVersion), a PolicyException (kyverno.io or policies.kyverno.io), a binding of an
 * admission policy, or not a policy, with the reason.
 */
export function classify(doc: JsonValue | undefined): Classification {
  if (!isObject(doc)) return { role: "not-a-policy", reason: "document is not a mapping" };
  const kind = typeof doc["kind"] === "string" ? doc["kind"] : "";
  const apiVersion = typeof doc["apiVersion"] === "string" ? doc["apiVersion"] : "";
  if (kind === "PolicyException")
    return { role: "exception", language: apiVersion.startsWith("policies.kyverno.io/") ? "cel" : "kyverno" };
  const bound = BINDINGS.get(kind);
  if (bound !== undefined) return { role: "binding", of: bound };
  const descriptor = BY_NAME.get(kind);
  if (descriptor !== undefined && (descriptor.language !== "kyverno" || apiVersion.startsWith("kyverno.io/")))
    return { role: "policy", kind: descriptor };
  // A kind a letter or two from a known one (ClusterPolcy) is most likely a typo: name the kind meant.
  const near = kind === "" ? [] : nearNames(kind, [...BY_NAME.keys(), "PolicyException"]).filter((n) => n !== kind);
  const hint = near.length > 0 ? `; did you mean kind ${near.map((n) => JSON.stringify(n)).join(" or ")}?` : "";
  return {
    role: "not-a-policy",
    reason: `kind ${JSON.stringify(kind || "(none)")} with apiVersion ${JSON.stringify(apiVersion || "(none)")} is not a Kyverno policy${hint}`,
    ...(near.length > 0 ? { nearKinds: near } : {}),
  };
}
