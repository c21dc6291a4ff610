/**
 * What a policy's annotations add to each of its report rows, whatever its kind: Kyverno's reports
 * read `policies.kyverno.io/severity` and `policies.kyverno.io/category` from the policy object
 * (a ValidatingPolicy's, a MutatingPolicy's, a ValidatingAdmissionPolicy's rows carry them as a
 * ClusterPolicy's do).
 */
import { isObject, type JsonValue } from "../api/json.js";

export function reportAnnotations(metadata: JsonValue | undefined): { severity?: string; category?: string } {
  const annotations = isObject(metadata) && isObject(metadata["annotations"]) ? metadata["annotations"] : {};
  const severity = annotations["policies.kyverno.io/severity"];
  const category = annotations["policies.kyverno.io/category"];
  return {
    ...(typeof severity === "string" ? { severity } : {}),
    ...(typeof category === "string" ? { category } : {}),
  };
}
