/** What a validate.cel rule sees of a request: object, oldObject, request and namespaceObject. */
import { isObject, type JsonObject } from "../../api/json.js";
import { resourceNamespace, type Operation, type Resource } from "../../api/resource.js";
import type { CelRuleInput } from "./evaluate.js";

export interface CelRequestParts {
  readonly resource: Resource;
  readonly oldResource?: Resource;
  readonly operation: Operation;
  readonly namespaceLabels: Readonly<Record<string, string>>;
}

/**
 * `request` is the rule context's `request` without its objects (Kubernetes' AdmissionRequest);
 * `namespaceObject` is the resource's Namespace with the labels Bylaw knows (null for
 * cluster-scoped resources and for a Namespace itself, as Kubernetes has it).
 */
export function celRuleInput(req: CelRequestParts, data: JsonObject): CelRuleInput {
  const subject = req.operation === "DELETE" && req.oldResource !== undefined ? req.oldResource : req.resource;
  const ctxRequest = data["request"];
  const request: JsonObject = {};
  if (isObject(ctxRequest)) for (const [k, v] of Object.entries(ctxRequest)) if (k !== "object" && k !== "oldObject") request[k] = v;
  const ns = subject.kind === "Namespace" && (subject.apiVersion ?? "v1") === "v1" ? "" : resourceNamespace(subject);
  const labels: JsonObject = { ...req.namespaceLabels };
  return {
    object: req.operation === "DELETE" ? null : req.resource,
    oldObject: req.oldResource ?? null,
    request,
    namespaceObject: ns === "" ? null : { apiVersion: "v1", kind: "Namespace", metadata: { name: ns, labels } },
  };
}
