/**
 * What of a verifyImages rule Bylaw cannot run, read from the policy as written (no request): the
 * entry fields image-verification.ts names, and the attestors attestors.ts answers with an error
 * (keyless, secret and kms keys, keys and certificates whose Rekor log or SCTs are not ignored), and
 * the attestations' attestors likewise (with no attestors, or nested sets, too). For reports that
 * need no request, such as the server's `status_ready`; evaluation names the same gaps per image.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import type { Rule } from "../api/policy.js";
import { readVerification } from "./image-verification.js";

const MAX_DEPTH = 4;

export function imageVerifyGaps(rule: Rule): string | undefined {
  const gaps: string[] = [];
  (rule.verifyImages ?? []).forEach((e, i) => {
    const v = readVerification(e, i);
    if (v.unsupported !== undefined) gaps.push(v.unsupported);
    v.attestors.forEach((set, j) => attestorGaps(set, `verifyImages[${i}].attestors[${j}]`, gaps, 0));
    v.attestations.forEach((a, k) => {
      const at = `verifyImages[${i}].attestations[${k}].attestors`;
      const sets = isObject(a) && Array.isArray(a["attestors"]) ? a["attestors"].filter(isObject) : [];
      if (sets.length === 0) gaps.push(`${at} (none: keyless)`);
      // Nested attestor sets are not verified for attestations: MAX depth stops the descent.
      sets.forEach((set, j) => attestorGaps(set, `${at}[${j}]`, gaps, MAX_DEPTH));
    });
  });
  return gaps.length > 0 ? gaps.join("; ") : undefined;
}

function certificateGaps(c: JsonObject, at: string, gaps: string[]): void {
  if (typeof c["cert"] !== "string" || c["cert"] === "") gaps.push(`${at}.cert (none given)`);
  else if (!isObject(c["rekor"]) || c["rekor"]["ignoreTlog"] !== true)
    gaps.push(`${at}.rekor (the transparency log is not ignored)`);
  else if (
    typeof c["certChain"] === "string" &&
    c["certChain"] !== "" &&
    (!isObject(c["ctlog"]) || c["ctlog"]["ignoreSCT"] !== true)
  )
    gaps.push(`${at}.ctlog (SCTs are not ignored)`);
}

function attestorGaps(set: JsonObject, path: string, gaps: string[], depth: number): void {
  const entries = Array.isArray(set["entries"]) ? set["entries"] : [];
  entries.forEach((a: JsonValue, k) => {
    if (!isObject(a)) return;
    const at = `${path}.entries[${k}]`;
    if (a["attestor"] !== undefined && a["attestor"] !== null) {
      if (isObject(a["attestor"]) && depth < MAX_DEPTH)
        return attestorGaps(a["attestor"], `${at}.attestor`, gaps, depth + 1);
      return void gaps.push(`${at}.attestor`);
    }
    const keys = a["keys"];
    if (isObject(a["keyless"])) gaps.push(`${at}.keyless`);
    else if (isObject(a["certificates"])) certificateGaps(a["certificates"], `${at}.certificates`, gaps);
    else if (!isObject(keys)) gaps.push(at);
    else if (typeof keys["publicKeys"] !== "string" || keys["publicKeys"] === "")
      gaps.push(`${at}.keys (secret or kms)`);
    else if (!isObject(keys["rekor"]) || keys["rekor"]["ignoreTlog"] !== true)
      gaps.push(`${at}.keys.rekor (the transparency log is not ignored)`);
  });
}
