/**
 * The default `bylaw apply` text, laid out as Kyverno 1.19's `kyverno apply` prints it
 * (cmd/cli/kubectl-kyverno/commands/apply/command.go RunE and "Applying ..." line, print.go
 * printViolations, processor/policy_processor.go printOutput): the "Applying N policy rule(s) ..."
 * header, each mutate policy's resource and each generated resource as the processor prints them,
 * then per response (policy × resource) the skipped and erroring mutate and generate rules and the
 * failed rules, then the totals. Go's Println puts a space between operands, so some lines end in
 * one before a line break, as Kyverno's do.
 */
import {
  type CompiledPolicy,
  hasMutateRules,
  kyvernoCompiledRules,
  policyMatchOf,
  type PolicyResponse,
  type Resource,
  resourceKind,
  resourceName,
  resourceNamespace,
} from "../../engine/index.js";
import { writeGoYamlMap } from "../../platform/yaml/index.js";
import { policyAction } from "./policy-action.js";
import { summaryLine, type countResults } from "./types.js";

export interface KyvernoApplyText {
  /** Whether to print the "Applying ..." header (kyverno apply leaves it out with -p, --generate-exceptions and -i). */
  readonly header: boolean;
  /** `appliedRuleCount` of the policies. */
  readonly rules: number;
  /** Resources and JSON payloads. */
  readonly resourceCount: number;
  readonly exceptions: number;
  /** Every engine response, in Kyverno's order (per resource, its CLI stages: library/process-resource.ts). */
  readonly responses: readonly PolicyResponse[];
  /** Each generated resource of a response, as it is printed (see resource-output.ts). */
  readonly generated: (response: PolicyResponse) => readonly Resource[];
  readonly counts: ReturnType<typeof countResults>;
  /**
   * Where the mutated and generated resources go: `printed` here; `to-files` with -o PATH (only
   * Kyverno's "Mutation:"/"Generate:" trailers are printed); `elsewhere` with -i (stdout has them alone).
   */
  readonly resources: "printed" | "to-files" | "elsewhere";
  readonly auditWarn: boolean;
  /**
   * The kyverno.io policies with mutate rules, once per --json payload in payload order: kyverno
   * apply prints each one's run on the payload (payloadsText).
   */
  readonly payloadMutatePolicies: readonly string[];
  readonly namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

/**
 * The header's rule count: a kyverno.io policy's rules with their autogen copies (Kyverno's
 * autogen.Default.ComputeRules), one for a policy of any other kind.
 */
export function appliedRuleCount(policies: readonly CompiledPolicy[]): number {
  let n = 0;
  for (const p of policies) n += policyMatchOf(p).language === "kyverno" ? kyvernoCompiledRules(p).length : 1;
  return n;
}

/** The whole stdout text, ending in a line break. */
export function renderKyvernoApplyText(input: KyvernoApplyText): string {
  let out = renderKyvernoApplyProlog(input);
  for (const response of input.responses) out += responseText(response, input);
  return `${out}\n${summaryLine(totals(input))}\n`;
}

/**
 * What kyverno apply prints before its results in every layout that has them (the text, -t): the
 * "Applying ..." header and what the processor printed while it ran.
 */
export function renderKyvernoApplyProlog(input: KyvernoApplyText): string {
  let out = "";
  if (input.header) {
    const withExceptions = input.exceptions > 0 ? ` with ${input.exceptions} exception(s)` : "";
    out += `\nApplying ${input.rules} policy rule(s) to ${input.resourceCount} resource(s)${withExceptions}...\n`;
  }
  if (input.resources !== "elsewhere") {
    for (const response of input.responses) out += producedText(response, input);
    out += payloadsText(input);
  }
  return out;
}

/**
 * kyverno apply's totals: every result once, but a MutatingPolicy's target results not at all
 * (RuleResult `target`) and the results of a kind it counts twice (CliStages `countedTwice`) once more.
 */
function totals(input: KyvernoApplyText): ReturnType<typeof countResults> {
  const counts = { ...input.counts };
  for (const response of input.responses) {
    const twice = response.policy.origin.kind.cliStages.countedTwice;
    for (const rule of response.rules) {
      if (rule.target === true) counts[rule.status]--;
      else if (twice) counts[rule.status]++;
    }
  }
  return counts;
}

function resourcePath(r: Resource): string {
  const path = `${resourceNamespace(r)}/${resourceKind(r)}/${resourceName(r)}`;
  return path === "//" ? "JSON payload" : path;
}

/**
 * printOutput: "policy NAME applied to NAMESPACE/Kind/name:" (the processor's path: "//" for a
 * JSON payload), the resource, then each patched target; with -o nothing (they go to the files).
 */
function printed(
  resource: Resource,
  at: { readonly policy: string; readonly subject: Resource; readonly targets: readonly Resource[] },
  input: KyvernoApplyText,
): string {
  if (input.resources === "to-files") return "";
  const path = `${resourceNamespace(at.subject)}/${resourceKind(at.subject)}/${resourceName(at.subject)}`;
  let out = `\npolicy ${at.policy} applied to ${path}:`;
  out += `\n${writeGoYamlMap(resource)}\n---\n`;
  if (at.targets.length > 0) {
    out += "patched targets: \n";
    for (const t of at.targets) out += `\n${writeGoYamlMap(t)}\n---\n\n`;
  }
  return out;
}

const MUTATED = "\n\nMutation:\nMutation has been applied successfully.";

/**
 * kyverno apply runs each kyverno.io mutate policy on a --json payload as on an empty resource and
 * prints it ("{}") under the path "//"; nothing matches, so nothing is counted.
 */
function payloadsText(input: KyvernoApplyText): string {
  let out = "";
  for (const policy of input.payloadMutatePolicies)
    out += printed({}, { policy, subject: {}, targets: [] }, input) + MUTATED;
  return out;
}

/**
 * What the processor prints while it runs: a kyverno.io mutate policy's resource on every resource
 * (patched or not); a MutatingPolicy's as many times as Kyverno prints it (PolicyResponse
 * `cliPrints`: once per body that matched, and once per autogen copy or own spec with more than
 * plain constraints that did not), another CEL kind's when it gave results; each generated resource.
 */
function producedText(response: PolicyResponse, input: KyvernoApplyText): string {
  let out = "";
  // A policy's verifyImages pass is a response of its own (library/process-resource.ts); Kyverno's
  // processor prints only the mutate pass's resource.
  const imagesOnly = response.rules.length > 0 && response.rules.every((r) => r.type === "ImageVerify");
  const mutates = hasMutateRules(response.policy) && !imagesOnly;
  const kyverno = policyMatchOf(response.policy).language === "kyverno";
  const times = kyverno ? 1 : (response.cliPrints ?? (response.rules.length > 0 ? 1 : 0));
  // A MutatingPolicy's targets are responses of their own in Kyverno's CLI, printed nowhere.
  const targets = response.rules.flatMap((r) =>
    r.patchedTarget !== undefined && r.target !== true ? [r.patchedTarget] : [],
  );
  const at = { policy: response.policy.name, subject: response.resource, targets };
  for (let i = 0; mutates && i < times; i++)
    out += printed(response.patchedResource ?? response.resource, at, input) + MUTATED;
  for (const g of input.generated(response)) {
    out += printed(g, at, input);
    out += "\n\nGenerate:\nGeneration completed successfully.";
  }
  return out;
}

/** RunE's loop body for one response. */
function responseText(response: PolicyResponse, input: KyvernoApplyText): string {
  const name = response.policy.name;
  const path = resourcePath(response.resource);
  let out = "";
  const failed = [];
  for (const rule of response.rules) {
    if (rule.status === "fail") failed.push(rule);
    if (rule.type === "Mutation" && rule.status === "skip")
      out += `\nskipped mutate policy ${name} -> resource ${path}\n`;
    else if (rule.type === "Mutation" && rule.status === "error")
      out += `\nerror while applying mutate policy ${name} -> resource ${path} \nerror:  ${rule.message}\n`;
    if (rule.type === "Generation" && rule.status === "error")
      out += `\nerror while applying generate policy ${name} -> resource ${path} \nerror: ${rule.message}\n`;
  }
  if (failed.length === 0) return out;
  const ns = resourceNamespace(response.resource);
  const asWarning =
    input.auditWarn && policyAction(response.policy, ns, input.namespaceLabels.get(ns) ?? {}) === "Audit";
  out += `policy ${name} -> resource ${path} ${asWarning ? "failed as audit warning:" : "failed:"}\n`;
  failed.forEach((rule, i) => {
    out += `${i + 1} - ${rule.rule} ${rule.message === "" ? "validation failed" : rule.message}\n`;
  });
  return out;
}

/**
 * What kyverno apply's text leaves out: rules (other than mutate and generate ones, which it
 * prints) that ended in an error. Kyverno only counts them in the totals; Bylaw names each on
 * stderr, in the failed lines' shape, so stdout stays kyverno apply's and an error's reason is
 * never hidden. "" when there are none.
 */
export function hiddenErrorsText(responses: readonly PolicyResponse[]): string {
  let out = "";
  for (const response of responses) {
    const errors = response.rules.filter(
      (r) => r.status === "error" && r.type !== "Mutation" && r.type !== "Generation",
    );
    if (errors.length === 0) continue;
    out += `policy ${response.policy.name} -> resource ${resourcePath(response.resource)} error:\n`;
    errors.forEach((rule, i) => {
      out += `${i + 1} - ${rule.rule} ${rule.message}\n`;
    });
  }
  return out;
}
