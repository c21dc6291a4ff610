/**
 * Kyverno's denial text (Kyverno `pkg/webhooks/utils/block.go`): two newlines, the sentence
 * `resource <Kind>/<namespace>/<name> was blocked due to the following policies ` (with its trailing
 * space), two newlines, then a yaml.v3 document mapping each policy to its rules' messages, for every
 * rule that neither passed nor was skipped. Cluster-scoped resources read `Kind//name`.
 */
import type { PolicyResponse } from "../../engine/index.js";
import { YamlV3Writer } from "./yaml-v3.js";

export interface ResourceId {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** `yaml`: the server's writer, whose memo makes repeated denials cheap; by default a writer of its own. */
export function denialMessage(
  resource: ResourceId,
  responses: readonly PolicyResponse[],
  yaml: YamlV3Writer = new YamlV3Writer(),
): string {
  const failures = new Map<string, Map<string, string>>();
  for (const response of responses) {
    // Made for the policies with something to show only: most responses of a denied review passed.
    let rules: Map<string, string> | undefined;
    for (const r of response.rules)
      if (r.status !== "pass" && r.status !== "skip") (rules ??= new Map<string, string>()).set(r.rule, r.message);
    // Kyverno keys the map by policy name alone: a later policy of the same name replaces an earlier one.
    if (rules !== undefined) failures.set(response.policy.name, rules);
  }
  const id = `${resource.kind}/${resource.namespace}/${resource.name}`;
  return `\n\nresource ${id} was blocked due to the following policies \n\n${yaml.marshalNestedMap(failures)}`;
}
