/** Kubernetes' `jsonpatch` CEL library, which a MutatingPolicy's JSONPatch expressions read: `jsonpatch.escapeKey`. */
import { namespace, type CelLibrary } from "../library.js";

/** A key as one JSON Pointer segment (RFC 6901): `~` as `~0`, then `/` as `~1`. */
function escapeKey(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

export function jsonPatchLibrary(): CelLibrary {
  return {
    name: "k8s.JSONPatch",
    ...namespace("jsonpatch", "bylaw.JsonPatchNamespace"),
    functions: [
      {
        signature: "bylaw.JsonPatchNamespace.escapeKey(string): string",
        handler: (_: unknown, key: string) => escapeKey(key),
      },
    ],
  };
}
