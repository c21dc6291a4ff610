/**
 * The validate side of a verifyImages rule (Kyverno `validate_image.go`, run by the validating
 * webhook): for each entry and each image it lists, `verifyDigest` fails an image without a digest
 * ("missing digest for <image>"), and `required` fails an image that is not verified ("unverified
 * image <image>"). Kyverno reads "verified" from the `kyverno.io/verify-images` annotation its
 * mutating webhook wrote; for an entry that checks signatures Bylaw checks them again here (the
 * registry answers are kept per run), so that an annotation a request brings itself never stands
 * for a verification, and a check Bylaw could not make is an `error`. An entry with no attestors
 * reads the annotation, as Kyverno does. The rule passes ("image verified", naming the skipped
 * images) unless an image fails, and is skipped when every image was skipped. The texts are Kyverno's
 * `pkg/engine/handlers/validation/validate_image.go` (`Process`, `validateImage`) and
 * `pkg/engine/utils` `IsImageVerified` ("image is not verified", "failed to parse image metadata: …").
 */
import type { RuleResult } from "../api/rule-result.js";
import { ruleResult } from "../api/rule-result.js";
import { annotationsOf, readStatuses, VERIFY_IMAGES_ANNOTATION } from "./annotation.js";
import { verifiesSignatures, type ImageVerification } from "./image-verification.js";
import { imageMatches, type MatchedImage } from "./matched-images.js";
import { unchanged, type ImageRuleInput } from "./mutate-images.js";
import { verifyImage } from "./verify-image.js";

type Check =
  { readonly status: "pass" | "skip" | "none" } | { readonly status: "fail" | "error"; readonly message: string };

export function validateImages(input: ImageRuleInput): RuleResult | undefined {
  const { rule, entries } = input;
  const images = input.images;
  if (!images.some((m) => entries.some((e) => imageMatches(m.image, e.imageReferences)))) return undefined;
  const passed: string[] = [];
  const skipped: string[] = [];
  for (const entry of entries) {
    for (const m of images) {
      if (!imageMatches(m.image, entry.imageReferences)) continue;
      const check = checkImage(input, entry, m);
      if (check.status === "fail" || check.status === "error")
        return ruleResult(rule, "ImageVerify", check.status, check.message);
      if (check.status === "pass") passed.push(m.image);
      if (check.status === "skip") skipped.push(m.image);
    }
  }
  if (passed.length > 0 || skipped.length === 0) {
    return ruleResult(
      rule,
      "ImageVerify",
      "pass",
      skipped.length > 0 ? ["image verified, skipped images:", ...skipped].join(" ") : "image verified",
    );
  }
  return ruleResult(rule, "ImageVerify", "skip", ["image skipped, skipped images:", ...skipped].join(" "));
}

function checkImage(input: ImageRuleInput, entry: ImageVerification, m: MatchedImage): Check {
  if (entry.verifyDigest && m.digest === "") return { status: "fail", message: `missing digest for ${m.image}` };
  if (!entry.required) return { status: "none" };
  if (!verifiesSignatures(entry)) return fromAnnotation(input, m.image);
  if (unchanged(m, input.resource, input.oldResource)) return { status: "pass" };
  const verdict = verifyImage(entry, {
    image: m.image,
    policy: input.policy,
    rule: input.rule,
    ports: input.ports,
    digest: m.digest,
    ...(input.conditions !== undefined ? { conditions: input.conditions } : {}),
  });
  if (verdict === undefined || verdict.status === "pass") return { status: "pass" };
  if (verdict.status === "skip" || verdict.status === "warn") return { status: "skip" };
  if (verdict.status === "error") return { status: "error", message: verdict.message };
  return { status: "fail", message: `unverified image ${m.image}` };
}

/** Kyverno's `IsImageVerified` over the annotation. */
function fromAnnotation(input: ImageRuleInput, image: string): Check {
  const annotations = annotationsOf(input.resource);
  if (Object.keys(annotations).length === 0) return { status: "fail", message: `unverified image ${image}` };
  if (annotations[VERIFY_IMAGES_ANNOTATION] === undefined) return { status: "fail", message: "image is not verified" };
  const statuses = readStatuses(annotations[VERIFY_IMAGES_ANNOTATION]);
  if (!statuses.ok) return { status: "fail", message: `failed to parse image metadata: ${statuses.error}` };
  const status = statuses.value[image];
  if (status === "pass") return { status: "pass" };
  if (status === "skip") return { status: "skip" };
  return { status: "fail", message: `unverified image ${image}` };
}
