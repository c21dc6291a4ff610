/**
 * The webhook-facing part of a policy's head (ADR 0005 §1), read from the policy's own document by
 * its language: what the webhook does when it fails (failurePolicy), the CEL kinds'
 * validationActions, whether it applies at admission at all, and whether it answers with warnings.
 * The server reads these instead of a kyverno-shaped stand-in document.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import { kyvernoRulePhases, type DocumentHead, type UnsourcedPolicy } from "../policy/compiled-policy.js";
import type { PolicyKindDescriptor, PolicyPhase } from "./types.js";
import { documentReadsLiveState } from "./reads-live-state.js";

type WebhookHead = Omit<DocumentHead, "phases" | "labels" | "readsLiveState">;

/** The CEL kinds Bylaw runs, and the kinds it answers with an error, take part in the validate phase. */
const VALIDATE_ONLY: readonly PolicyPhase[] = Object.freeze(["validate"] as const);
/** A DeletingPolicy decides no request: the cleanup controller runs it on its schedule. */
const DELETE_ONLY: readonly PolicyPhase[] = Object.freeze(["delete"] as const);
const MUTATE_ONLY: readonly PolicyPhase[] = Object.freeze(["mutate"] as const);

export function documentHeadOf(doc: JsonObject, kind: PolicyKindDescriptor, compiled: UnsourcedPolicy): DocumentHead {
  return { ...headByLanguage(doc, kind, compiled), readsLiveState: documentReadsLiveState(doc) };
}

function headByLanguage(
  doc: JsonObject,
  kind: PolicyKindDescriptor,
  compiled: UnsourcedPolicy,
): Omit<DocumentHead, "readsLiveState"> {
  const spec = isObject(doc["spec"]) ? doc["spec"] : {};
  const labels = labelsOf(doc);
  // By what it compiled to: a kind at a version Bylaw does not run is its placeholder, answering in the validate phase.
  switch (compiled.language) {
    case "kyverno":
      return { ...kyvernoHead(spec), phases: kyvernoRulePhases(compiled.rules), labels };
    case "cel":
      return {
        ...(kind.boundBy === undefined ? validatingHead(spec) : plainHead(spec)),
        phases: VALIDATE_ONLY,
        labels,
      };
    case "generating":
      return { ...generatingHead(spec), phases: GENERATE_ONLY, labels };
    case "mutating":
      return { ...mutatingHead(spec), phases: MUTATE_ONLY, labels };
    case "unsupported":
      return { ...plainHead(spec), phases: VALIDATE_ONLY, labels };
    case "deleting":
      return { ...plainHead(spec), admission: false, phases: DELETE_ONLY, labels };
    case "image-validating":
      return { ...validatingHead(spec), phases: kind.phases, labels };
  }
}

/** A GeneratingPolicy takes part in the generate phase only. */
const GENERATE_ONLY: readonly PolicyPhase[] = Object.freeze(["generate"] as const);

/** A GeneratingPolicy: `evaluation.admission.enabled: false` keeps it out of admission; its webhook fails as configured. */
function generatingHead(spec: JsonObject): WebhookHead {
  const evaluation = isObject(spec["evaluation"]) ? spec["evaluation"] : {};
  const admission = isObject(evaluation["admission"]) ? evaluation["admission"]["enabled"] !== false : true;
  return { failurePolicy: configuredFailurePolicy(spec), validationActions: undefined, admission, emitWarning: false };
}

function labelsOf(doc: JsonObject): Readonly<Record<string, string>> {
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const labels = isObject(metadata["labels"]) ? metadata["labels"] : {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (typeof v === "string") out[k] = v;
  return out;
}

function kyvernoHead(spec: JsonObject): WebhookHead {
  return {
    failurePolicy: configuredFailurePolicy(spec),
    validationActions: undefined,
    admission: spec["admission"] !== false,
    emitWarning: spec["emitWarning"] === true,
  };
}

/** A ValidatingPolicy: validationActions default to Deny; Warn answers with warnings; `evaluation.admission.enabled: false` keeps it out of admission. */
function validatingHead(spec: JsonObject): WebhookHead {
  const actions = spec["validationActions"];
  const validationActions = Array.isArray(actions)
    ? actions.filter((a): a is string => typeof a === "string")
    : ["Deny"];
  const evaluation = isObject(spec["evaluation"]) ? spec["evaluation"] : {};
  const admission = isObject(evaluation["admission"]) ? evaluation["admission"]["enabled"] !== false : true;
  return {
    failurePolicy: configuredFailurePolicy(spec),
    validationActions,
    admission,
    emitWarning: validationActions.includes("Warn"),
  };
}

/** A MutatingPolicy: its failurePolicy; `evaluation.admission.enabled: false` keeps it out of admission. */
function mutatingHead(spec: JsonObject): WebhookHead {
  const evaluation = isObject(spec["evaluation"]) ? spec["evaluation"] : {};
  const admission = isObject(evaluation["admission"]) ? evaluation["admission"]["enabled"] !== false : true;
  return { failurePolicy: configuredFailurePolicy(spec), validationActions: undefined, admission, emitWarning: false };
}

/** A ValidatingAdmissionPolicy (its actions are its bindings') or a kind Bylaw does not run: its failurePolicy alone. */
function plainHead(spec: JsonObject): WebhookHead {
  return {
    failurePolicy: failurePolicy(spec["failurePolicy"]),
    validationActions: undefined,
    admission: true,
    emitWarning: false,
  };
}

/** `webhookConfiguration.failurePolicy`, else `spec.failurePolicy` (deprecated in kyverno.io), else Fail. */
function configuredFailurePolicy(spec: JsonObject): "Fail" | "Ignore" {
  const configured = isObject(spec["webhookConfiguration"]) ? spec["webhookConfiguration"]["failurePolicy"] : undefined;
  return failurePolicy(typeof configured === "string" ? configured : spec["failurePolicy"]);
}

function failurePolicy(v: JsonValue | undefined): "Fail" | "Ignore" {
  return v === "Ignore" ? "Ignore" : "Fail";
}
