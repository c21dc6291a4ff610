/**
 * Load-time checks of `validate.podSecurity` (Kyverno's CRD enums and `Rule.ValidatePSaControlNames`)
 * and of PolicyException `spec.podSecurity` entries (`PodSecurityStandard.Validate`).
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import { problem, warning, type PolicyProblem } from "../api/problem.js";
import { CONTAINER_LEVEL_CONTROLS, CONTROL_NAMES, POD_LEVEL_CONTROLS, RESTRICTED_ONLY_CONTROLS } from "./controls.js";
import type { CompiledPodSecurity, PodSecurityExclude, PssLevel } from "./types.js";
import { LEVELS, parseVersion } from "./versions.js";
import { scheduleChecks } from "./evaluate.js";

const EXCLUDE_FIELDS = new Set(["controlName", "images", "restrictedField", "values"]);
const quoted = (items: readonly string[]): string => items.map((s) => JSON.stringify(s)).join(", ");

function stringList(raw: JsonValue | undefined, path: string, problems: PolicyProblem[]): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw) || !raw.every((s) => typeof s === "string")) {
    problems.push(problem(path, "must be a list of strings"));
    return undefined;
  }
  return raw;
}

function parseExclude(
  raw: JsonValue,
  path: string,
  problems: PolicyProblem[],
  warnings: PolicyProblem[],
): PodSecurityExclude | undefined {
  if (!isObject(raw)) {
    problems.push(problem(path, "must be a mapping with controlName and optional images, restrictedField and values"));
    return undefined;
  }
  for (const k of Object.keys(raw))
    if (!EXCLUDE_FIELDS.has(k))
      warnings.push(
        warning(`${path}.${k}`, `unknown field, ignored; an exclude entry has ${[...EXCLUDE_FIELDS].join(", ")}`),
      );
  const controlName = raw["controlName"];
  if (typeof controlName !== "string" || controlName === "") {
    problems.push(problem(`${path}.controlName`, `Required value: one of ${quoted(CONTROL_NAMES)}`));
    return undefined;
  }
  if (!CONTROL_NAMES.includes(controlName)) {
    problems.push(
      problem(
        `${path}.controlName`,
        `Unsupported value: ${JSON.stringify(controlName)}: supported values: ${quoted(CONTROL_NAMES)}`,
      ),
    );
    return undefined;
  }
  const restrictedField = raw["restrictedField"];
  if (restrictedField !== undefined && restrictedField !== null && typeof restrictedField !== "string") {
    problems.push(
      problem(`${path}.restrictedField`, "must be a string, e.g. spec.containers[*].securityContext.capabilities.add"),
    );
  }
  const images = stringList(raw["images"], `${path}.images`, problems);
  const values = stringList(raw["values"], `${path}.values`, problems);
  return {
    controlName,
    ...(images !== undefined ? { images } : {}),
    ...(typeof restrictedField === "string" && restrictedField !== "" ? { restrictedField } : {}),
    ...(values !== undefined ? { values } : {}),
  };
}

/** Kyverno's images rules for a control: container-level controls need images, pod-level ones must not have them. */
function imageProblems(e: PodSecurityExclude, path: string): PolicyProblem[] {
  const n = e.images?.length ?? 0;
  const at = `${path}.controlName`;
  const value = `Invalid value: ${JSON.stringify(e.controlName)}`;
  if (CONTAINER_LEVEL_CONTROLS.includes(e.controlName) && n === 0)
    return [problem(at, `${value}: exclude.images must be specified for the container level control`)];
  if (POD_LEVEL_CONTROLS.includes(e.controlName) && n > 0)
    return [problem(at, `${value}: exclude.images must not be specified for the pod level control`)];
  return [];
}

/**
 * Checks a PolicyException's `spec.podSecurity[i]` entry (`path` is e.g. `spec.podSecurity[0]`):
 * a known control name, the images rules, and restrictedField and values given together.
 */
export function checkPodSecurityExclude(e: PodSecurityExclude, path: string): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  if (!CONTROL_NAMES.includes(e.controlName)) {
    out.push(
      problem(
        `${path}.controlName`,
        `Unsupported value: ${JSON.stringify(e.controlName)}: supported values: ${quoted(CONTROL_NAMES)}`,
      ),
    );
    return out;
  }
  out.push(...imageProblems(e, path));
  const hasField = (e.restrictedField ?? "") !== "";
  const hasValues = (e.values?.length ?? 0) > 0;
  if (hasField && !hasValues) out.push(problem(`${path}.values`, "Forbidden: values is required"));
  if (!hasField && hasValues) out.push(problem(`${path}.restrictedField`, "Forbidden: restrictedField is required"));
  return out;
}

/**
 * Compiles `validate.podSecurity` (`path` is e.g. `spec.rules[0].validate.podSecurity`): level
 * privileged, baseline or restricted; version latest (the default) or v1.<minor>; exclude entries
 * with a known control name, images for container-level controls and none for pod-level ones, and
 * no restricted-only control at the baseline level. Unknown fields are warnings (Kyverno's CRD
 * prunes them).
 */
export function compilePodSecurity(
  spec: JsonObject,
  path: string,
): { ok: true; value: CompiledPodSecurity; warnings: PolicyProblem[] } | { ok: false; problems: PolicyProblem[] } {
  const problems: PolicyProblem[] = [];
  const warnings: PolicyProblem[] = [];
  const rawLevel = spec["level"];
  let level: PssLevel | undefined;
  if (typeof rawLevel === "string" && (LEVELS as readonly string[]).includes(rawLevel)) level = rawLevel as PssLevel;
  else if (rawLevel === undefined || rawLevel === null)
    problems.push(problem(`${path}.level`, `Required value: one of ${quoted(LEVELS)}`));
  else
    problems.push(
      problem(`${path}.level`, `Unsupported value: ${JSON.stringify(rawLevel)}: supported values: ${quoted(LEVELS)}`),
    );

  const rawVersion = spec["version"] ?? "";
  const versionText = typeof rawVersion === "string" ? rawVersion : "";
  const version = typeof rawVersion === "string" ? parseVersion(rawVersion) : undefined;
  if (version === undefined) {
    problems.push(
      problem(
        `${path}.version`,
        `Unsupported value: ${JSON.stringify(rawVersion)}: supported values: "latest" or "v1.<minor>", e.g. "v1.32"`,
      ),
    );
  }

  const exclude: PodSecurityExclude[] = [];
  const rawExclude = spec["exclude"];
  if (rawExclude !== undefined && rawExclude !== null && !Array.isArray(rawExclude)) {
    problems.push(problem(`${path}.exclude`, "must be a list of {controlName, images, restrictedField, values}"));
  } else if (Array.isArray(rawExclude)) {
    rawExclude.forEach((raw, i) => {
      const at = `${path}.exclude[${i}]`;
      const e = parseExclude(raw, at, problems, warnings);
      if (e === undefined) return;
      problems.push(...imageProblems(e, at));
      if (level === "baseline" && RESTRICTED_ONLY_CONTROLS.includes(e.controlName)) {
        problems.push(
          problem(
            `${at}.controlName`,
            `Invalid value: ${JSON.stringify(e.controlName)}: Invalid control name defined at the given level`,
          ),
        );
      }
      exclude.push(e);
    });
  }
  for (const k of Object.keys(spec)) {
    if (!["level", "version", "exclude"].includes(k))
      warnings.push(warning(`${path}.${k}`, "unknown field, ignored; podSecurity has level, version and exclude"));
  }
  if (problems.length > 0 || level === undefined || version === undefined)
    return { ok: false, problems: [...problems, ...warnings] };
  return {
    ok: true,
    value: { level, versionText, version, exclude, checks: scheduleChecks(level, version) },
    warnings,
  };
}
