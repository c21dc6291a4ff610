/**
 * `bylaw apply --json PATH` (Kyverno's flag) and a test file's `jsonPayloads`: JSON payloads that are not Kubernetes objects
 * (a Terraform plan, a CI config…), each document of each file one payload. Only ValidatingPolicies
 * with `spec.evaluation.mode: JSON` run on them; Kubernetes-mode policies never do. `bylaw apply`
 * also runs the JSON-mode policies on each `-r` resource taken as a raw payload, as Kyverno 1.19's
 * CLI does (kyverno/kyverno#15332): `object` is the whole resource, no matchConstraints
 * (library/process-resource.ts `applyToPayload`).
 */
import { asJsonPayload, type JsonObject } from "../../engine/index.js";
import { loadPaths } from "../../platform/files/index.js";
import type { ResourceOrigin } from "../output/types.js";

interface LoadedPayloads {
  readonly payloads: JsonObject[];
  readonly origins: ResourceOrigin[];
  readonly errors: string[];
}

/** `label` goes before each error (e.g. `--json: `). */
export async function loadJsonPayloads(
  paths: readonly string[],
  stdin: () => Promise<string>,
  label = "",
): Promise<LoadedPayloads> {
  const out: LoadedPayloads = { payloads: [], origins: [], errors: [] };
  for (const d of await loadPaths(paths, { stdin })) {
    if (d.error !== undefined) out.errors.push(`${label}${d.error}`);
    else if (d.value === undefined) continue;
    else {
      const payload = asJsonPayload(d.value);
      if (payload === undefined)
        out.errors.push(
          `${label}${d.source}: document ${d.index + 1}: a JSON payload must be an object (got ${Array.isArray(d.value) ? "a list" : typeof d.value})`,
        );
      else {
        out.payloads.push(payload);
        out.origins.push({ source: d.source, ...(d.line !== undefined ? { line: d.line } : {}) });
      }
    }
  }
  return out;
}
