/**
 * Entry points: match a resource against a validate `pattern` or an `anyPattern` list, with
 * Kyverno's outcome mapping (`validate.MatchPattern` and the validate handler).
 */
import type { JsonValue } from "../api/json.js";
import { compileNode } from "./compile.js";
import type { PatternNode } from "./compile.js";
import { isSkip } from "./pattern-error.js";
import type { AnyPatternOutcome, CompiledPattern, IndexedOutcome, PatternOutcome } from "./types.js";
import { walkElement } from "./walk.js";
import { WalkContext } from "./walk-context.js";

const PASS: PatternOutcome = { status: "pass" };

/**
 * Compiles a pattern once for matching against many resources: one walk per match, which builds
 * Kyverno's message and path only at a mismatch.
 */
export function compilePattern(pattern: JsonValue): CompiledPattern {
  const root = compileNode(pattern);
  return { source: pattern, match: (resource) => matchNode(root, resource) };
}

/** Matches a resource against a pattern (compiling it on the way; prefer `compilePattern` in loops). */
export function matchPattern(resource: JsonValue, pattern: JsonValue): PatternOutcome {
  return matchNode(compileNode(pattern), resource);
}

function matchNode(root: PatternNode, resource: JsonValue): PatternOutcome {
  const ctx = new WalkContext();
  const m = walkElement(resource, root, ctx);
  if (m === undefined) return PASS;
  if (isSkip(m)) return { status: "skip", message: m.message };
  if (m.kind === "negation") return { status: "fail", path: m.path, message: m.message };
  if (ctx.keysAreMissing() || m.path === "") return { status: "error", message: m.message };
  return { status: "fail", path: m.path, message: m.message };
}

/** A compiled `anyPattern` list. */
interface CompiledAnyPattern {
  readonly patterns: readonly CompiledPattern[];
  match(resource: JsonValue): AnyPatternOutcome;
}

export function compileAnyPattern(patterns: readonly JsonValue[]): CompiledAnyPattern {
  const compiled = patterns.map(compilePattern);
  return { patterns: compiled, match: (resource) => anyOf(compiled, resource) };
}

/**
 * Matches `anyPattern`: the first pattern that passes wins (`index`; -1 for an empty list, which
 * Kyverno passes). Otherwise the rule fails if any pattern failed or errored, else it is a skip.
 */
export function matchAnyPattern(resource: JsonValue, patterns: readonly JsonValue[]): AnyPatternOutcome {
  return anyOf(patterns.map(compilePattern), resource);
}

function anyOf(patterns: readonly CompiledPattern[], resource: JsonValue): AnyPatternOutcome {
  if (patterns.length === 0) return { status: "pass", index: -1 };
  const outcomes: IndexedOutcome[] = [];
  for (const [index, p] of patterns.entries()) {
    const outcome = p.match(resource);
    if (outcome.status === "pass") return { status: "pass", index };
    outcomes.push({ index, outcome });
  }
  const failed = outcomes.some((o) => o.outcome.status !== "skip");
  return { status: failed ? "fail" : "skip", outcomes };
}

/**
 * Kyverno's per-pattern texts for a non-passing `anyPattern`, in order, to be joined with a space:
 * `rule <rule>[i] failed at path <p>`, `rule <rule>[i] failed: <error>` (no path), or, when every
 * pattern skipped, `rule <rule>[i] skipped: <reason>`. Only failures are listed when any pattern failed.
 */
export function anyPatternDetails(ruleName: string, outcome: Exclude<AnyPatternOutcome, { status: "pass" }>): string[] {
  const texts: string[] = [];
  for (const { index, outcome: o } of outcome.outcomes) {
    const name = `rule ${ruleName}[${index}]`;
    if (o.status === "skip") {
      if (outcome.status === "skip") texts.push(`${name} skipped: ${o.message}`);
    } else if (o.status === "fail") {
      texts.push(`${name} failed at path ${o.path}`);
    } else {
      texts.push(`${name} failed: ${o.message}`);
    }
  }
  return texts;
}
