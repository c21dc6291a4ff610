/**
 * What a validate.cel rule sees of a request: object, oldObject, request and namespaceObject, as
 * CEL values. The caller converts them once per request (the validate pipeline keeps them in its
 * PreparedRequest, `derived`), not once per rule: converting a Pod costs ~5 µs.
 */
import { isObject, type JsonObject } from "../../api/json.js";
import { requestSubject, resourceNamespace, type Operation, type Resource } from "../../api/resource.js";
import { ADMISSION_REQUEST_FIELDS } from "../create-cel.js";
import { toCel } from "../values.js";

interface CelRequestParts {
  readonly resource: Resource;
  readonly oldResource?: Resource;
  readonly operation: Operation;
  readonly namespaceLabels: Readonly<Record<string, string>>;
  /**
   * The Namespace whole, when the caller has it (a values file's `namespaces:` entry); null when the
   * caller says there is none to give (Kyverno's CLI without a values entry for the namespace).
   */
  readonly namespaceObject?: Resource | null;
}

/** The request's variables as CEL values (`params` and `variables` are the rule's). */
export interface CelRuleInput {
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly request: unknown;
  readonly namespaceObject: unknown;
}

/**
 * `request` has the fields of Kubernetes' AdmissionRequest, from the rule context's `request`;
 * `namespaceObject` is the resource's Namespace: the object the caller gives (annotations and all),
 * else one with the labels Bylaw knows (null for cluster-scoped resources and for a Namespace
 * itself, as Kubernetes has it).
 */
export function celRuleInput(req: CelRequestParts, data: JsonObject): CelRuleInput {
  return build(req, data);
}

/**
 * The same for the policies.kyverno.io kinds, whose `namespaceObject` is only ever the Namespace
 * itself: null when the caller has none (`namespaceObject: null`), where a validate.cel rule sees
 * one built from the name and labels, as Kyverno's JSON engine builds it. Kyverno's CLI resolves
 * these kinds' Namespace from the values file alone, so `namespaceObject.metadata.name` is an
 * error there ("no such key: metadata") for a namespace the values do not list.
 */
export function celPolicyInput(req: CelRequestParts, data: JsonObject): CelRuleInput {
  return forPolicyKinds(build(req, data), req);
}

/** `input` (built by `celRuleInput`) as the policies.kyverno.io kinds see it (`celPolicyInput`). */
export function forPolicyKinds(input: CelRuleInput, req: Pick<CelRequestParts, "namespaceObject">): CelRuleInput {
  return req.namespaceObject === null ? { ...input, namespaceObject: null } : input;
}

/**
 * Kubernetes' AdmissionRequest fields from the rule context's `request` (the webhook's whole
 * request, or the one Bylaw builds offline); what is not known offline gets Kubernetes' empty value.
 */
function admissionRequest(ctx: unknown): JsonObject {
  const from = isObject(ctx) ? ctx : {};
  const out: JsonObject = {};
  for (const k of ADMISSION_REQUEST_FIELDS) {
    const v = from[k];
    if (v !== undefined) out[k] = v;
  }
  const kind = isObject(out["kind"]) ? out["kind"] : { group: "", version: "", kind: "" };
  out["kind"] ??= kind;
  out["requestKind"] ??= kind;
  out["resource"] ??= { group: kind["group"] ?? "", version: kind["version"] ?? "", resource: "" };
  out["requestResource"] ??= out["resource"];
  out["subResource"] ??= "";
  out["requestSubResource"] ??= out["subResource"];
  out["name"] ??= "";
  out["namespace"] ??= "";
  // Kubernetes' UserInfo with nothing set marshals to {} (its fields are omitempty): offline, without a
  // userinfo file, `request.userInfo.username` is "no such key", as in Kyverno's CLI and background scans.
  out["userInfo"] ??= {};
  out["dryRun"] ??= false;
  out["options"] ??= null;
  return out;
}

function build(req: CelRequestParts, data: JsonObject): CelRuleInput {
  const subject = requestSubject(req);
  const request = admissionRequest(data["request"]);
  const ns = subject.kind === "Namespace" && (subject.apiVersion ?? "v1") === "v1" ? "" : resourceNamespace(subject);
  const labels: JsonObject = { ...req.namespaceLabels };
  const namespace = req.namespaceObject ?? { apiVersion: "v1", kind: "Namespace", metadata: { name: ns, labels } };
  return {
    object: req.operation === "DELETE" ? null : toCel(req.resource),
    oldObject: req.oldResource === undefined ? null : toCel(req.oldResource),
    request: toCel(request),
    namespaceObject: ns === "" ? null : toCel(namespace),
  };
}
