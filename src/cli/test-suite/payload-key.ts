/**
 * Kyverno's test CLI keeps the responses for a test file's JSON payload under the payload's file as
 * the test file names it (commands/test/test.go keys its trigger map by `jsonPayload`), so a results
 * entry may name that file where it would name a resource. A payload has no metadata.name to be
 * found by; this remembers which file each loaded payload came from.
 */
import type { JsonObject, Resource } from "../../engine/index.js";

const fileOf = new WeakMap<object, string>();

/** Records that `payload` was read from `file` (as the test file writes it). */
export function keyPayload(payload: JsonObject, file: string): void {
  fileOf.set(payload, file);
}

/** The test file's name for the payload a response was evaluated on; undefined for any other resource. */
export function payloadFile(resource: Resource): string | undefined {
  return fileOf.get(resource);
}
