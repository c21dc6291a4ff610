/**
 * Whether a rule's match/exclude selects a request (Kyverno
 * `api/kyverno/v1/match_resources_types.go`): match.any (OR), match.all (AND) or
 * the legacy single filter; then exclude.any (excluded if any filter selects), exclude.all
 * (excluded only if all do) or the legacy exclude filter. A namespaced Policy only sees resources
 * of its own namespace.
 */
import type { LabelSelector, MatchResources, ResourceFilter, Rule } from "../api/policy.js";
import { resourceNamespace } from "../api/resource.js";
import { compileFilter, type CompiledFilter } from "./resource-filter.js";
import { kindSelects } from "./resource-description.js";
import type { CheckContext, CompiledMatch, MatchDecision, MatchGate, MatchRequest } from "./types.js";
import { isEmptyUserInfo } from "./user-info.js";
import { parseKindSelector } from "./kind-selector.js";
import { hasWildcard } from "../values/wildcard.js";

type Mode = "any" | "all" | "legacy";

interface CompiledBlock {
  readonly mode: Mode;
  readonly filters: readonly CompiledFilter[];
  /**
   * The kinds the block can select, when every selector that decides it names its kind without a
   * wildcard: a request of another kind fails the block without evaluating it.
   */
  readonly kinds: readonly string[] | undefined;
  /** The operations the block can select, when every filter that decides it names them; undefined: any. */
  readonly operations: readonly string[] | undefined;
  readonly gate: MatchGate;
}

const EMPTY_USER = { username: "", groups: [], roles: [], clusterRoles: [] } as const;

function compileBlock(block: MatchResources | null | undefined): CompiledBlock {
  const b: MatchResources = block ?? {};
  if (b.any != null && b.any.length > 0)
    return {
      mode: "any",
      filters: b.any.map(filterOf),
      kinds: kindsOfEvery(b.any),
      operations: opsOfEvery(b.any),
      gate: gateOfEvery(b.any),
    };
  if (b.all != null && b.all.length > 0) {
    // Every filter must select, so any one filter's kinds are a necessary condition.
    const sets = b.all.map((f) => kindsOfEvery([f]));
    const ops = b.all.map((f) => opsOfEvery([f]));
    const gates = b.all.map((f) => gateOfEvery([f]));
    const kindsGate = gates.find((g) => g.kinds !== undefined)?.kinds;
    const namespacesGate = gates.find((g) => g.namespaces !== undefined)?.namespaces;
    const namesGate = gates.find((g) => g.names !== undefined)?.names;
    // Every filter must select, so the subject holds the keys each one's selector requires.
    const keys = [...new Set(gates.flatMap((g) => g.labelKeys?.[0] ?? []))];
    return {
      mode: "all",
      filters: b.all.map(filterOf),
      kinds: sets.find((k) => k !== undefined),
      operations: ops.find((o) => o !== undefined),
      gate: {
        ...(kindsGate !== undefined ? { kinds: kindsGate } : {}),
        ...(namespacesGate !== undefined ? { namespaces: namespacesGate } : {}),
        ...(namesGate !== undefined ? { names: namesGate } : {}),
        ...(keys.length > 0 ? { labelKeys: [keys] } : {}),
      },
    };
  }
  return {
    mode: "legacy",
    filters: [filterOf(b)],
    kinds: kindsOfEvery([b]),
    operations: opsOfEvery([b]),
    gate: gateOfEvery([b]),
  };
}

/**
 * What each of the filters requires, joined: a request one of them selects meets the joined
 * condition. A criterion some filter does not write is left out (that filter asks nothing of it).
 */
function gateOfEvery(filters: readonly (ResourceFilter | MatchResources)[]): MatchGate {
  const descriptions = filters.map((f) => ("resources" in f ? f.resources : undefined) ?? {});
  const kinds = descriptions.map((rd) => rd.kinds ?? []);
  const namespaces = descriptions.map((rd) => rd.namespaces ?? []);
  const names = descriptions.map((rd) => namePatterns(rd.name, rd.names));
  const everyWrites = (lists: readonly (readonly string[])[]): boolean => lists.every((l) => l.length > 0);
  const gate: { -readonly [K in keyof MatchGate]: MatchGate[K] } = {};
  if (everyWrites(kinds)) {
    const selects = kinds.map(kindSelects);
    gate.kinds = (gvk, subresource) => selects.some((s) => s(gvk, subresource));
  }
  if (everyWrites(namespaces)) gate.namespaces = [...new Set(namespaces.flat())];
  if (everyWrites(names)) gate.names = [...new Set(names.flat())];
  const keys = descriptions.map((rd) => requiredLabelKeys(rd.selector));
  if (everyWrites(keys)) gate.labelKeys = keys;
  return gate;
}

/**
 * The label keys a `selector` cannot select a subject without: each literal `matchLabels` key
 * (a wildcard value still needs the key: label-selector.ts) and each key of an `In` or `Exists`
 * expression. A key with a wildcard is left out. A selector that does not build selects nothing,
 * with the key or without it, so the keys it writes are needed all the same.
 */
function requiredLabelKeys(selector: LabelSelector | null | undefined): readonly string[] {
  if (selector == null) return [];
  const keys = new Set<string>();
  for (const k of Object.keys(selector.matchLabels ?? {})) if (!hasWildcard(k)) keys.add(k);
  for (const e of selector.matchExpressions ?? [])
    if ((e.operator === "In" || e.operator === "Exists") && typeof e.key === "string" && !hasWildcard(e.key))
      keys.add(e.key);
  return [...keys];
}

/** A filter's name patterns: `names` and `name` must both hold when both are written, so either list is a condition. */
function namePatterns(name: string | undefined, names: readonly string[] | undefined): readonly string[] {
  if (names != null && names.length > 0) return names;
  return name != null && name !== "" ? [name] : [];
}

/** The operations the filters name, or undefined when one filter names none (it selects any operation). */
function opsOfEvery(filters: readonly (ResourceFilter | MatchResources)[]): readonly string[] | undefined {
  const ops = new Set<string>();
  for (const f of filters) {
    const written = "resources" in f ? f.resources?.operations : undefined;
    if (written == null || written.length === 0) return undefined;
    for (const o of written) ops.add(o);
  }
  return [...ops];
}

/** The literal kind names of the filters' selectors, or undefined when one filter could select any kind. */
function kindsOfEvery(filters: readonly (ResourceFilter | MatchResources)[]): readonly string[] | undefined {
  const kinds = new Set<string>();
  for (const f of filters) {
    const written = "resources" in f ? f.resources?.kinds : undefined;
    if (written == null || written.length === 0) return undefined;
    for (const k of written) {
      const kind = parseKindSelector(k).kind;
      if (kind === "" || hasWildcard(kind)) return undefined;
      kinds.add(kind);
    }
  }
  // A short list: a few string comparisons beat a hash lookup on this path.
  return [...kinds];
}

function filterOf(f: ResourceFilter | MatchResources): CompiledFilter {
  return compileFilter(f);
}

/** Compile a rule's match/exclude once; the result evaluates requests without re-parsing. */
export function compileMatch(rule: Pick<Rule, "match" | "exclude">): CompiledMatch {
  const match = compileBlock(rule.match);
  const exclude = rule.exclude == null ? undefined : compileBlock(rule.exclude);
  return {
    kinds: match.kinds,
    operations: match.operations,
    gate: match.gate,
    matches(req: MatchRequest): boolean {
      if (match.kinds !== undefined && !includes(match.kinds, req.gvk.kind)) return false;
      if (req.policyNamespace !== "" && req.policyNamespace !== resourceNamespace(req.resource)) return false;
      const background = isEmptyUserInfo(req.userInfo);
      const ctx: CheckContext = { req, user: req.userInfo ?? EMPTY_USER };
      if (!selects(match, ctx, background)) return false;
      return exclude === undefined || !excludes(exclude, ctx);
    },
    explain(req: MatchRequest): MatchDecision {
      return explainMatch({ match, exclude }, req);
    },
  };
}

/** `matches`, saying which clause decided: for explanations only (it walks every filter). */
function explainMatch(
  blocks: { match: CompiledBlock; exclude: CompiledBlock | undefined },
  req: MatchRequest,
): MatchDecision {
  const { match, exclude } = blocks;
  if (match.kinds !== undefined && !includes(match.kinds, req.gvk.kind))
    return {
      matched: false,
      reason: `match: kind ${req.gvk.kind} is not among ${match.kinds.join(", ")}`,
      elsewhere: true,
    };
  const namespace = resourceNamespace(req.resource);
  if (req.policyNamespace !== "" && req.policyNamespace !== namespace)
    return {
      matched: false,
      reason: `a Policy in namespace ${req.policyNamespace} applies only there (the resource is in ${namespace === "" ? "no namespace" : namespace})`,
    };
  const background = isEmptyUserInfo(req.userInfo);
  const ctx: CheckContext = { req, user: req.userInfo ?? EMPTY_USER };
  const selected = explainSelects(match, ctx, background);
  if (!selected.matched) return selected;
  if (exclude === undefined) return { matched: true, reason: `${selected.reason}; no exclude` };
  const excluded = explainExcludes(exclude, ctx);
  return excluded.matched
    ? { matched: false, reason: `${selected.reason}, but ${excluded.reason}` }
    : { matched: true, reason: `${selected.reason}; ${excluded.reason}` };
}

function explainSelects(block: CompiledBlock, ctx: CheckContext, background: boolean): MatchDecision {
  const unmet = block.filters.map((f) => (f.selects(ctx, background) ? [] : f.unmet(ctx, !background)));
  const at = (i: number) => (block.mode === "legacy" ? "match" : `match.${block.mode}[${i}]`);
  const why = (i: number) => `${at(i)} (${(unmet[i] ?? []).join(", ")} not met)`;
  if (block.mode === "all") {
    const failing = unmet.findIndex((u) => u.length > 0);
    return failing < 0
      ? { matched: true, reason: "every filter of match.all selected it" }
      : { matched: false, reason: `${why(failing)} did not select it` };
  }
  const first = unmet.findIndex((u) => u.length === 0);
  if (first >= 0) return { matched: true, reason: `${at(first)} selected it` };
  return { matched: false, reason: `no filter selected it: ${unmet.map((_, i) => why(i)).join("; ")}` };
}

function explainExcludes(block: CompiledBlock, ctx: CheckContext): MatchDecision {
  const at = (i: number) => (block.mode === "legacy" ? "exclude" : `exclude.${block.mode}[${i}]`);
  const hits = block.filters.map((f) => f.excludes(ctx));
  if (block.mode === "all")
    return hits.every((h) => h)
      ? { matched: true, reason: "every filter of exclude.all excluded it" }
      : { matched: false, reason: `${at(hits.indexOf(false))} did not exclude it` };
  const first = hits.indexOf(true);
  return first >= 0
    ? { matched: true, reason: `${at(first)} excluded it` }
    : { matched: false, reason: "no exclude filter excluded it" };
}

function selects(block: CompiledBlock, ctx: CheckContext, background: boolean): boolean {
  // Plain loops: this runs for every rule that passes the kind prefilter, on every request.
  const filters = block.filters;
  if (block.mode === "all") {
    for (const f of filters) if (!f.selects(ctx, background)) return false;
    return true;
  }
  if (block.mode === "legacy") return filters[0]?.selects(ctx, background) === true;
  for (const f of filters) if (f.selects(ctx, background)) return true;
  return false;
}

/** exclude.any: excluded if any filter selects; exclude.all: only if every filter does. */
function excludes(block: CompiledBlock, ctx: CheckContext): boolean {
  switch (block.mode) {
    case "any":
      return block.filters.some((f) => f.excludes(ctx));
    case "all":
      return block.filters.every((f) => f.excludes(ctx));
    case "legacy":
      return block.filters[0]?.excludes(ctx) === true;
  }
}

function includes(list: readonly string[], item: string): boolean {
  for (let i = 0; i < list.length; i++) if (list[i] === item) return true;
  return false;
}
