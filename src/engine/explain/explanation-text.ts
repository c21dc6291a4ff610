/**
 * `--explain` as text: per resource and policy, each rule with the clause that matched or excluded
 * it, the exceptions considered, context values, preconditions and deny conditions with their
 * operands, a CEL policy's expressions, and where a pattern failed with the value found there.
 */
import type { JsonPatchOp } from "../mutate/json-patch/index.js";
import { preview } from "./preview.js";
import type { ExplainedConditions, FailedAt, ForEachExplanation, PolicyExplanation, RuleExplanation } from "./types.js";

export function explanationText(explanations: readonly PolicyExplanation[]): string {
  if (explanations.length === 0) return "explain: no policy matched any resource";
  return explanations.map(renderPolicy).join("\n\n");
}

function renderPolicy(p: PolicyExplanation): string {
  const lines = [`explain: ${p.kind} ${p.policy} on ${p.resource} (${p.operation})`];
  const unmatched = p.rules.filter((r) => !r.match.matched && r.results.length === 0);
  for (const rule of p.rules) if (!unmatched.includes(rule)) lines.push(...renderRule(rule));
  // Rules left out for one reason (autogen copies for other kinds, mostly) share a line.
  const byReason = new Map<string, string[]>();
  for (const rule of unmatched)
    byReason.set(rule.match.reason, [...(byReason.get(rule.match.reason) ?? []), rule.rule]);
  for (const [reason, names] of byReason) lines.push(`  ${unmatchedLabel(names)}: not matched: ${reason}`);
  return lines.join("\n");
}

/** Named rules, or a CEL policy's bodies (named ""): its own and its autogen copies for pod controllers. */
function unmatchedLabel(names: readonly string[]): string {
  const named = names.filter((n) => n !== "");
  const bodies = names.length - named.length;
  const parts: string[] = [];
  if (named.length > 0) parts.push(`${named.length === 1 ? "rule" : "rules"} ${named.join(", ")}`);
  if (bodies > 0) parts.push(bodies === 1 ? "policy body" : `${bodies} policy bodies (its own and autogen copies)`);
  return parts.join(", ");
}

/** An expression on one line: a policy's multi-line YAML block would break the explanation's indentation. */
function oneLine(expression: string): string {
  return expression.replace(/\s+/g, " ");
}

function ruleLabel(rule: RuleExplanation): string {
  return rule.rule === "" ? "policy" : `rule ${rule.rule}`;
}

function renderRule(rule: RuleExplanation): string[] {
  const status = rule.results.length === 0 ? "no result" : rule.results.map((r) => r.status).join(", ");
  const lines = [`  ${ruleLabel(rule)}: ${status}`, `    match: ${rule.match.reason}`];
  for (const e of rule.exceptions ?? [])
    lines.push(`    exception ${e.name}: ${e.applied ? "applied" : "considered, did not apply"}`);
  if (rule.context !== undefined) {
    for (const entry of rule.context.entries) lines.push(`    context ${entry.name} = ${entry.value}`);
    if (rule.context.error !== undefined) lines.push(`    context failed: ${rule.context.error}`);
  }
  if (rule.preconditions !== undefined) lines.push(...renderConditions("preconditions", rule.preconditions));
  if (rule.deny !== undefined) lines.push(...renderConditions("deny conditions", rule.deny, "denied", "not denied"));
  for (const step of rule.cel ?? [])
    lines.push(
      `    ${step.at} ${oneLine(step.expression)} → ${step.error !== undefined ? `error: ${step.error}` : step.value}`,
    );
  if (rule.celOmitted !== undefined) lines.push(`    … ${rule.celOmitted} more evaluations not shown`);
  for (const op of rule.patch ?? []) lines.push(`    patch ${patchLine(op)}`);
  for (const f of rule.foreach ?? []) lines.push(...renderForEach(f));
  if (rule.failedAt !== undefined) lines.push(`    ${failedAt(rule.failedAt)}`);
  for (const p of rule.anyPattern ?? [])
    lines.push(
      `    ${p.at}: ${p.status}${p.failedAt !== undefined ? `, ${failedAt(p.failedAt)}` : p.message !== undefined ? `: ${p.message}` : ""}`,
    );
  for (const r of rule.results) if (r.message !== "") lines.push(`    message: ${r.message}`);
  return lines;
}

function patchLine(op: JsonPatchOp): string {
  const from = op.from !== undefined ? ` from ${op.from}` : "";
  const value = op.value !== undefined ? ` ${preview(op.value)}` : "";
  return `${op.op} ${op.path}${from}${value}`;
}

function renderForEach(f: ForEachExplanation): string[] {
  const lines = [`    ${f.at} over ${f.list}: ${f.elements} elements reached, ${f.passed} passed`];
  if (f.error !== undefined) lines.push(`      error: ${f.error}`);
  const d = f.decided;
  if (d === undefined) return lines;
  lines.push(`      element ${d.index} ${d.element}: ${d.status}${d.message !== "" ? `: ${d.message}` : ""}`);
  if (d.deny !== undefined)
    lines.push(...renderConditions("deny conditions", d.deny, "denied", "not denied").map((l) => `  ${l}`));
  if (d.failedAt !== undefined) lines.push(`        ${failedAt(d.failedAt)}`);
  return lines;
}

function failedAt(f: FailedAt): string {
  const expected = f.expected === undefined ? "" : `, the pattern wants ${f.expected}`;
  return `failed at ${f.path}: found ${f.value}${expected}`;
}

function renderConditions(title: string, c: ExplainedConditions, met = "met", notMet = "not met"): string[] {
  const outcome = typeof c.met === "object" ? `error: ${c.met.error}` : c.met ? met : notMet;
  const lines = [`    ${title}: ${outcome}`];
  for (const step of c.conditions) {
    const holds = typeof step.holds === "object" ? `error: ${step.holds.error}` : String(step.holds);
    lines.push(`      ${step.at} ${step.key} ${step.operator} ${step.value} → ${holds}`);
  }
  return lines;
}
