/**
 * Problems Kyverno rejects at policy admission in a match or exclude block (Kyverno
 * `pkg/validation/policy/validate.go`):
 * variables, any+all together, any/all next to the legacy form, name+names, selectors without
 * requirements or that Kubernetes cannot build, malformed subjects and roles, and match filters
 * without resource criteria.
 */
import type { MatchResources, ResourceDescription, ResourceFilter } from "../api/policy.js";
import { evaluateSelector, selectorHasWildcard, selectorRequirementCount } from "./label-selector.js";
import { isZeroDescription } from "./resource-description.js";
import type { UserInfoCriteria } from "./user-info.js";

type BlockRole = "match" | "exclude";

/** One admission problem: the field path it concerns and what is wrong there. */
interface MatchBlockProblem {
  readonly path: string;
  readonly message: string;
}

/** A `{{ … }}` that is not escaped with a backslash (Kyverno's variable regex). */
const VARIABLE = /(^|[^\\])\{\{(?:\{[^{}]*\}|[^{}])*\}\}/;

/**
 * Check one match or exclude block; `path` is where it sits, e.g. `spec.rules[0].match`. The role
 * defaults to "exclude" when the path ends in `exclude`, otherwise "match". Returns one message
 * per problem, each starting with the field path.
 */
export function checkMatchBlock(
  block: MatchResources | undefined,
  path: string,
  role: BlockRole = roleOf(path),
): string[] {
  return matchBlockProblems(block, path, role).map((p) => `${p.path}: ${p.message}`);
}

/** The same checks as `checkMatchBlock`, with the path and the message kept apart. */
export function matchBlockProblems(
  block: MatchResources | undefined,
  path: string,
  role: BlockRole = roleOf(path),
): MatchBlockProblem[] {
  const problems: MatchBlockProblem[] = [];
  if (block == null) {
    if (role === "match") problems.push(at(`${path}.resources`, `match resources not specified`));
    return problems;
  }
  if (VARIABLE.test(JSON.stringify(block))) problems.push(at(path, `should not have variables in ${role} section`));
  const any = block.any ?? [];
  const all = block.all ?? [];
  if (any.length > 0 && all.length > 0) problems.push(at(path, `Can't specify any and all together`));
  if ((any.length > 0 || all.length > 0) && !isZeroDescription(block.resources)) {
    problems.push(at(path, `can't specify any/all together with ${role} resources`));
  }
  problems.push(...checkUserInfo(block, path));
  if (any.length > 0 || all.length > 0) {
    any.forEach((f, i) => problems.push(...checkFilter(f, `${path}.any[${i}]`, role)));
    all.forEach((f, i) => problems.push(...checkFilter(f, `${path}.all[${i}]`, role)));
  } else {
    problems.push(...checkDescription(block.resources, `${path}.resources`, role));
  }
  return problems;
}

function roleOf(path: string): BlockRole {
  return /exclude$/.test(path) ? "exclude" : "match";
}

function checkFilter(f: ResourceFilter, path: string, role: BlockRole): MatchBlockProblem[] {
  return [...checkUserInfo(f, path), ...checkDescription(f.resources, `${path}.resources`, role)];
}

function checkDescription(rd: ResourceDescription | undefined, path: string, role: BlockRole): MatchBlockProblem[] {
  if (isZeroDescription(rd)) return role === "match" ? [at(path, "match resources not specified")] : [];
  if (rd == null) return [];
  const problems: MatchBlockProblem[] = [];
  if ((rd.name ?? "") !== "" && rd.names != null && rd.names.length > 0) {
    problems.push(at(path, `Both name and names can not be specified together`));
  }
  const selector = rd.selector;
  if (selector != null && !selectorHasWildcard(selector)) {
    const built = evaluateSelector(selector, {});
    if (!built.ok) problems.push(at(`${path}.selector`, built.error));
    else if (selectorRequirementCount(selector) === 0)
      problems.push(at(`${path}.selector`, `The requirements are not specified in selector`));
  }
  return problems;
}

function checkUserInfo(u: UserInfoCriteria, path: string): MatchBlockProblem[] {
  const problems: MatchBlockProblem[] = [];
  (u.subjects ?? []).forEach((s, i) => {
    const where = `${path}.subjects[${i}]`;
    if (((s.kind as string | undefined) ?? "") === "") problems.push(at(`${where}.kind`, `Required value`));
    if ((s.name ?? "") === "") problems.push(at(`${where}.name`, `Required value`));
    if (s.kind === "ServiceAccount" && (s.namespace ?? "") === "") {
      problems.push(at(`${where}.namespace`, `Required value: namespace is required when Kind is ServiceAccount`));
    }
  });
  (u.roles ?? []).forEach((r, i) => {
    if (r.split(":").length !== 2)
      problems.push(
        at(`${path}.roles[${i}]`, `Invalid value: "${r}": Role is expected to be in namespace:name format`),
      );
  });
  return problems;
}

function at(path: string, message: string): MatchBlockProblem {
  return { path, message };
}
