/**
 * Kyverno's texts for podSecurity results (`validate_pss.go`, `pss.FormatChecksPrint`) and the
 * report properties it adds for them (`pkg/utils/report/results.go`, addPodSecurityProperties).
 */
import { goJsonString } from "../go/json-encode.js";
import { formatBadValue } from "./go-format.js";
import type { CompiledPodSecurity, PodSecurityOutcome, PssCheck, PssFieldError } from "./types.js";

/** One field error: `<field> is forbidden, forbidden values found: <value>`, or Go's `field.Error` text. */
export function formatFieldError(e: PssFieldError): string {
  if (e.type === "Required") return `${e.field}: Required value`;
  if (e.badValue.kind === "string" && e.badValue.value === "") return `${e.field}: Forbidden`;
  return `${e.field} is forbidden, forbidden values found: ${formatBadValue(e.badValue)}`;
}

/** `(Forbidden reason: <reason>, field error list: [<errors>])` per check, concatenated. */
function formatChecks(checks: readonly PssCheck[]): string {
  return checks
    .map((c) => `(Forbidden reason: ${c.reason}, field error list: [${c.errors.map(formatFieldError).join(", ")}])`)
    .join("");
}

/**
 * The rule message: `Validation rule '<rule>' passed.` or
 * `Validation rule '<rule>' failed. It violates PodSecurity "<level>:<version>": <checks>`,
 * with level and version as written in the rule. (A rule skipped through PolicyExceptions and an
 * unsupported kind get their messages from the caller and `outcome.error`.)
 */
export function podSecurityMessage(ruleName: string, ps: CompiledPodSecurity, outcome: PodSecurityOutcome): string {
  if (outcome.error !== undefined) return outcome.error;
  if (outcome.allowed) return `Validation rule '${ruleName}' passed.`;
  return `Validation rule '${ruleName}' failed. It violates PodSecurity "${ps.level}:${ps.versionText}": ${formatChecks(outcome.checks)}`;
}

/**
 * Report properties of a failing podSecurity result: `standard` (the level), `version` (as
 * written), `controls` (check ids, comma-separated) and `controlsJSON`
 * (`[{"ID":…,"Name":…,"Images":[…]|null}]`). Empty when no check failed.
 */
export function podSecurityProperties(ps: CompiledPodSecurity, outcome: PodSecurityOutcome): Record<string, string> {
  if (outcome.checks.length === 0) return {};
  const controls = outcome.checks.map((c) => {
    const images = c.images === undefined ? "null" : `[${c.images.map((i) => goJsonString(i)).join(",")}]`;
    return `{"ID":${goJsonString(c.id)},"Name":${goJsonString(c.control)},"Images":${images}}`;
  });
  return {
    standard: ps.level,
    version: ps.versionText,
    controls: outcome.checks.map((c) => c.id).join(","),
    controlsJSON: `[${controls.join(",")}]`,
  };
}
