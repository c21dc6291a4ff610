/**
 * The mutate side of a verifyImages rule (Kyverno `mutate_image.go` and `ImageVerifier.Verify`, run
 * by the mutating webhook after the mutate rules, and by the CLI): for each entry and each matched
 * image, one result (verified, failed, skipped), the tag rewritten to its digest when `mutateDigest`
 * (`registry/path:tag@digest`, the digest from the checked signatures or from the registry port),
 * and the `kyverno.io/verify-images` annotation recording each image whose signatures were checked.
 * On UPDATE an image the request did not change is not checked again (it counts as verified).
 * "failed to update digest: …" and "mutated image digest" are Kyverno's `pkg/engine/internal/
 * imageverifier.go` (`Verify`, after `handleMutateDigest`).
 */
import { isObject, type JsonValue } from "../api/json.js";
import type { Resource } from "../api/resource.js";
import { ruleResult, type RuleResult } from "../api/rule-result.js";
import { withImageStatuses, type ImageStatus } from "./annotation.js";
import type { ImageVerification } from "./image-verification.js";
import { verifiesSignatures } from "./image-verification.js";
import { matchingImages, type MatchedImage } from "./matched-images.js";
import { annotationStatus, verifyImage, type VerifyTarget } from "./verify-image.js";
import type { EnginePorts } from "../ports.js";
import type { AttestationConditions } from "./attestations.js";

export interface ImageRuleInput {
  readonly policy: string;
  readonly rule: string;
  readonly entries: readonly ImageVerification[];
  readonly resource: Resource;
  /** The images the rule's extractors find in `resource` (image-extractors.ts). */
  readonly images: readonly MatchedImage[];
  /** The old object of an UPDATE: images it already had are not verified again. */
  readonly oldResource?: Resource;
  readonly ports: EnginePorts;
  /** How attestation conditions are evaluated (the rule's context with the predicate merged in). */
  readonly conditions?: AttestationConditions;
}

export function mutateImages(input: ImageRuleInput): { results: RuleResult[]; resource: Resource } {
  const { rule, entries, ports } = input;
  const images = matchingImages(input.images, entries);
  const results: RuleResult[] = [];
  const statuses = new Map<string, ImageStatus>();
  let resource = input.resource;
  for (const entry of entries) {
    for (const m of images) {
      if (unchanged(m, input.resource, input.oldResource)) {
        statuses.set(m.image, "pass");
        continue;
      }
      const target: VerifyTarget = {
        image: m.image,
        policy: input.policy,
        rule,
        ports,
        digest: m.digest,
        ...(input.conditions !== undefined ? { conditions: input.conditions } : {}),
      };
      const verdict = verifyImage(entry, target);
      let image = m.image;
      let result = verdict === undefined ? undefined : ruleResult(rule, "ImageVerify", verdict.status, verdict.message);
      if (entry.mutateDigest && m.digest === "") {
        const digest =
          verdict?.digest !== undefined
            ? { ok: true as const, value: verdict.digest }
            : digestOf(m.image, entry, ports);
        if (!digest.ok) {
          results.push(ruleResult(rule, "ImageVerify", "error", `failed to update digest: ${digest.message}`));
        } else {
          resource = setAt(resource, m.pointer, `${m.image}@${digest.value}`);
          result ??= ruleResult(rule, "ImageVerify", "pass", "mutated image digest");
          image = `${m.registry}/${m.path}@${digest.value}`;
        }
      }
      if (result === undefined) continue;
      if (verifiesSignatures(entry)) statuses.set(image, annotationStatus(result.status));
      results.push(result);
    }
  }
  if (statuses.size > 0) resource = withImageStatuses(resource, statuses);
  return { results, resource };
}

/** Whether an UPDATE leaves this image as it was (Kyverno's `HasChanged` on the image's path). */
export function unchanged(m: MatchedImage, resource: Resource, old: Resource | undefined): boolean {
  return old !== undefined && valueAt(old, m.pointer) === valueAt(resource, m.pointer);
}

function digestOf(
  image: string,
  entry: ImageVerification,
  ports: EnginePorts,
): { ok: true; value: string } | { ok: false; message: string } {
  const answer = ports.context.imageData(image, {
    form: "digest",
    ...(entry.credentials !== undefined ? { credentials: entry.credentials } : {}),
  });
  if (!answer.ok) return { ok: false, message: answer.error.message };
  const digest = isObject(answer.value) ? answer.value["digest"] : undefined;
  return typeof digest === "string" && digest !== ""
    ? { ok: true, value: digest }
    : { ok: false, message: `the registry port gave no digest for ${image}` };
}

function valueAt(resource: Resource, pointer: string): JsonValue | undefined {
  let cur: JsonValue | undefined = resource;
  for (const part of pointer.split("/").slice(1)) {
    if (Array.isArray(cur)) cur = cur[Number(part)];
    else if (isObject(cur)) cur = cur[part];
    else return undefined;
  }
  return cur;
}

/** The resource with `value` at a JSON pointer that exists (`/spec/containers/0/image`), copied along the way. */
export function setAt(resource: Resource, pointer: string, value: string): Resource {
  const parts = pointer.split("/").slice(1);
  const write = (node: JsonValue | undefined, i: number): JsonValue => {
    if (i === parts.length) return value;
    const key = parts[i] ?? "";
    if (Array.isArray(node)) return node.map((x, j) => (j === Number(key) ? write(x, i + 1) : x));
    const obj = isObject(node) ? node : {};
    return { ...obj, [key]: write(obj[key], i + 1) };
  };
  return write(resource, 0) as Resource;
}
