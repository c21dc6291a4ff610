/**
 * Turn one loaded document into a PolicyDocument, reporting structural problems with field paths.
 * Only kyverno.io ClusterPolicy/Policy are handled here; the kind registry (kinds/registry.ts) tells the kinds apart.
 */
import { isObject, type JsonValue } from "../api/json.js";
import type { PolicyDocument } from "../api/policy.js";
import { problem, type PolicyProblem } from "../api/problem.js";
import { policySchemaFor, schemaProblems } from "./schema/check-schema.js";

const KYVERNO_POLICY_API_VERSIONS = ["kyverno.io/v1", "kyverno.io/v2beta1"] as const;

/**
 * Structural parse: the CRD schema of the document's kind and version (schema/check-schema.ts:
 * unknown fields, types, enums, required fields, each at its path), and what the API server adds
 * (metadata.name). Semantic checks live in check-policy.ts.
 */
export function parsePolicy(doc: JsonValue): { policy?: PolicyDocument; problems: PolicyProblem[] } {
  const problems: PolicyProblem[] = [];
  if (!isObject(doc)) return { problems: [problem("", "a policy must be a mapping")] };
  const apiVersion = doc["apiVersion"];
  if (typeof apiVersion !== "string" || !(KYVERNO_POLICY_API_VERSIONS as readonly string[]).includes(apiVersion)) {
    problems.push(
      problem(
        "apiVersion",
        `unsupported apiVersion ${JSON.stringify(apiVersion ?? null)}; use one of ${KYVERNO_POLICY_API_VERSIONS.join(", ")}`,
      ),
    );
  }
  const kind = doc["kind"];
  if (kind !== "ClusterPolicy" && kind !== "Policy") {
    problems.push(problem("kind", `kind must be ClusterPolicy or Policy, got ${JSON.stringify(kind ?? null)}`));
  }
  const validate = policySchemaFor(doc);
  if (problems.length > 0 || validate === undefined) return { problems };
  const metadata = doc["metadata"];
  const name = isObject(metadata) ? metadata["name"] : undefined;
  if (typeof name !== "string" || name === "")
    problems.push(problem("metadata.name", "Required value: name or generateName is required"));
  problems.push(...(schemaProblems(doc, validate) ?? []));
  if (!isObject(doc["spec"])) problems.push(problem("spec", "Required value: spec must be a mapping"));
  if (problems.length > 0 || !validate(doc)) return { problems };
  return { policy: doc, problems };
}
