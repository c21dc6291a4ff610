/** `bylaw apply` flags, parsed and checked. Problems are usage errors (exit 2). */
import { parseArgs } from "node:util";
import { isGitUrl } from "../../git-source.js";
import { splitStringList } from "../../string-list-flag.js";
import {
  KYVERNO_ONLY_OPTIONS,
  parseExceptionTtl,
  parseWarnExitCode,
  shortTWarning,
  unsupportedKyvernoFlag,
} from "./kyverno-flags.js";

/** `text` is kyverno apply's text; `summary` Bylaw's own (output/human-summary.ts). */
const OUTPUT_FORMATS = ["text", "summary", "json", "junit", "sarif"] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];
/** `--report-api`: which reports -p prints (Kyverno 1.19's CLI: openreports). */
const REPORT_APIS = ["openreports", "wgpolicyk8s"] as const;
type ReportApi = (typeof REPORT_APIS)[number];

export interface ApplyOptions {
  readonly policyPaths: readonly string[];
  readonly policySets: readonly string[];
  readonly resourcePaths: readonly string[];
  /** `--json PATH`: JSON payloads for ValidatingPolicies with evaluation.mode JSON. */
  readonly jsonPaths: readonly string[];
  /** `--http-payload PATH`: HTTP requests (JSON) for ValidatingPolicies with evaluation.mode HTTP. */
  readonly httpPayloadPaths: readonly string[];
  /** `--envoy-payload PATH`: Envoy checks (protobuf JSON) for ValidatingPolicies with evaluation.mode Envoy. */
  readonly envoyPayloadPaths: readonly string[];
  readonly targetPaths: readonly string[];
  readonly exceptionPaths: readonly string[];
  readonly valuesFile?: string;
  /** `--set key=value` pairs, as given. */
  readonly set: readonly string[];
  readonly userinfo?: string;
  /** --parameter-resource: the objects ValidatingAdmissionPolicy bindings take params from. */
  readonly parameterPaths: readonly string[];
  /** --context-file: a Context file's objects and image data for the CEL libraries (offline only). */
  readonly contextFile?: string;
  /** --crd-paths: CustomResourceDefinitions naming custom kinds' API resources (crd-paths.ts). */
  readonly crdPaths: readonly string[];
  readonly outputPath?: string;
  readonly format: OutputFormat;
  readonly policyReport: boolean;
  /** `--report-api`: openreports (Kyverno 1.19's CLI: one merged ClusterReport) or wgpolicyk8s (a PolicyReport per namespace). */
  readonly reportApi: ReportApi;
  readonly auditWarn: boolean;
  readonly detailed: boolean;
  /** --remove-color: -t's header without Kyverno's colours (output/table.ts). */
  readonly plain: boolean;
  /** --explain: after the results, how each came about (engine.explain), as text or in the JSON output. */
  readonly explain: boolean;
  readonly enforce: boolean;
  /** `--registry`: read image registries for imageRegistry entries and CEL image.GetMetadata. */
  readonly registry: boolean;
  /** `--cluster`: also check the objects the policies match in the kubeconfig's cluster (cluster-input.ts). */
  readonly cluster?: ClusterOptions;
  /** `--git-branch`: the branch of the Git URLs among the POLICY paths (git-source.ts). */
  readonly gitBranch?: string;
  /** `-t/--table`: results as Kyverno's table (every rule result, one row each). */
  readonly table: boolean;
  /** `-i/--stdin`: stdout carries only the mutated and generated resources (to pipe into kubectl). */
  readonly resourcesOnly: boolean;
  /** `--warn-exit-code`, `--warn-no-pass`: Kyverno's warning exit codes (kyverno-flags.ts). */
  readonly warnExitCode: number;
  readonly warnNoPass: boolean;
  /** `--exceptions-with-resources`: PolicyExceptions among the -r documents are honoured too. */
  readonly exceptionsWithResources: boolean;
  /** `--generate-exceptions`: print a PolicyException per failure instead of the results (generated-exceptions.ts). */
  readonly generateExceptions: boolean;
  /** `--generated-exception-ttl`, in nanoseconds: the generated exceptions' cleanup.kyverno.io/ttl label. */
  readonly exceptionTtl: bigint;
  /** `--username`/`--password`: credentials for the Git URLs among the POLICY paths (git-source.ts). */
  readonly gitAuth?: { readonly username: string; readonly password: string };
}

export interface ClusterOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
  /** `-n`: list namespaced kinds in this namespace only. */
  readonly namespace?: string;
  /** `--cluster-wide-resources`: list cluster-scoped kinds (with -n, besides the namespace's objects). */
  readonly clusterWide: boolean;
  /** `--show-performance`: print how loading the cluster's objects went. */
  readonly showPerformance: boolean;
}

type ParsedApplyArgs =
  | { readonly kind: "help" }
  | { readonly kind: "usage-error"; readonly message: string; readonly showHelp: boolean }
  | { readonly kind: "run"; readonly options: ApplyOptions; readonly warnings: readonly string[] };

/** Kyverno's flags that give what a cluster would answer: with --cluster, the cluster answers instead. */
function offlineOnly(values: { readonly cluster?: boolean; readonly [flag: string]: unknown }): string | undefined {
  if (values.cluster !== true) return undefined;
  if (values["context-file"] !== undefined)
    return "--context-file is for offline runs: with --cluster, resource.Get/List read the cluster";
  if (values["parameter-resource"] !== undefined)
    return "--parameter-resource is for offline runs: with --cluster, bindings read their params from the cluster";
  return undefined;
}

/** The flags that are string lists in Kyverno's CLI: each occurrence is split at commas (string-list-flag.ts). */
const LIST_FLAGS = [
  "resource",
  "resources",
  "json",
  "http-payload",
  "envoy-payload",
  "target-resource",
  "target-resources",
  "exception",
  "exceptions",
  "set",
  "parameter-resource",
  "crd-paths",
  "crd-path",
] as const;

function stringLists(
  values: Readonly<Partial<Record<(typeof LIST_FLAGS)[number], string[]>>>,
): { ok: true; lists: Record<(typeof LIST_FLAGS)[number], string[]> } | { ok: false; error: string } {
  const lists = {} as Record<(typeof LIST_FLAGS)[number], string[]>;
  for (const flag of LIST_FLAGS) {
    const split = splitStringList(flag, values[flag]);
    if (!split.ok) return split;
    lists[flag] = split.items;
  }
  return { ok: true, lists };
}

export function parseApplyArgs(args: readonly string[]): ParsedApplyArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        resource: { type: "string", short: "r", multiple: true },
        resources: { type: "string", multiple: true },
        json: { type: "string", multiple: true },
        "http-payload": { type: "string", multiple: true },
        "envoy-payload": { type: "string", multiple: true },
        "target-resource": { type: "string", multiple: true },
        "target-resources": { type: "string", multiple: true },
        table: { type: "boolean", short: "t", default: false },
        stdin: { type: "boolean", short: "i", default: false },
        "warn-exit-code": { type: "string" },
        "warn-no-pass": { type: "boolean", default: false },
        "exceptions-with-resources": { type: "boolean", default: false },
        ...KYVERNO_ONLY_OPTIONS,
        "policy-set": { type: "string", multiple: true },
        exception: { type: "string", short: "e", multiple: true },
        exceptions: { type: "string", multiple: true },
        enforce: { type: "boolean", default: false },
        registry: { type: "boolean", default: false },
        "values-file": { type: "string", short: "f" },
        set: { type: "string", short: "s", multiple: true },
        userinfo: { type: "string", short: "u" },
        output: { type: "string", short: "o" },
        "output-format": { type: "string" },
        "policy-report": { type: "boolean", short: "p", default: false },
        "report-api": { type: "string", default: "openreports" },
        "audit-warn": { type: "boolean", default: false },
        "detailed-results": { type: "boolean", default: false },
        explain: { type: "boolean", default: false },
        cluster: { type: "boolean", short: "c", default: false },
        kubeconfig: { type: "string" },
        context: { type: "string" },
        namespace: { type: "string", short: "n" },
        "git-branch": { type: "string", short: "b" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (e) {
    return { kind: "usage-error", message: (e as Error).message, showHelp: true };
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: "help" };
  const refused = unsupportedKyvernoFlag(values);
  if (refused !== undefined) return { kind: "usage-error", message: refused, showHelp: false };
  const warnExit = parseWarnExitCode(values["warn-exit-code"]);
  if (!warnExit.ok) return { kind: "usage-error", message: warnExit.error, showHelp: false };
  const ttl = parseExceptionTtl(values["generated-exception-ttl"]);
  if (!ttl.ok) return { kind: "usage-error", message: ttl.error, showHelp: false };
  const tWarning = shortTWarning(args);
  const warnings: string[] = tWarning === undefined ? [] : [tWarning];
  const lists = stringLists(values);
  if (!lists.ok) return { kind: "usage-error", message: lists.error, showHelp: false };
  const list = lists.lists;
  if (values["crd-path"] !== undefined) warnings.push("Flag --crd-path has been deprecated, use --crd-paths instead");
  const policySets = values["policy-set"] ?? [];
  const resourcePaths = [...list.resource, ...list.resources];
  const jsonPaths = list.json;
  const httpPayloadPaths = list["http-payload"];
  const envoyPayloadPaths = list["envoy-payload"];
  const payloadPaths = jsonPaths.length + httpPayloadPaths.length + envoyPayloadPaths.length;
  if (
    (positionals.length === 0 && policySets.length === 0) ||
    (resourcePaths.length === 0 && payloadPaths === 0 && !values.cluster)
  ) {
    return {
      kind: "usage-error",
      message:
        "give at least one POLICY (or --policy-set NAME) and one -r RESOURCE (or --cluster, or --json PAYLOAD, or --http-payload REQUEST, or --envoy-payload REQUEST)",
      showHelp: true,
    };
  }
  if (values["git-branch"] !== undefined && !positionals.some(isGitUrl)) {
    return {
      kind: "usage-error",
      message:
        "--git-branch needs a Git URL among the POLICY paths (https://<host>/<owner>/<repository>/<folder>, or file://)",
      showHelp: false,
    };
  }
  const offline = offlineOnly(values);
  if (offline !== undefined) return { kind: "usage-error", message: offline, showHelp: false };
  if (!values.cluster) {
    const stray = (["namespace", "kubeconfig", "context"] as const).find((f) => values[f] !== undefined);
    if (stray !== undefined)
      return {
        kind: "usage-error",
        message: `--${stray} needs --cluster (it says which cluster, or which part of it, to check)`,
        showHelp: false,
      };
  }
  if ((values.username !== undefined || values.password !== undefined) && !positionals.some(isGitUrl))
    warnings.push(
      "warning: --username and --password are for Git URLs among the POLICY paths; there is none, so they are not used",
    );
  // Kyverno accepts these without --cluster, to no effect: say so rather than refuse.
  for (const f of ["cluster-wide-resources", "show-performance"] as const)
    if (!values.cluster && values[f] === true)
      warnings.push(`warning: --${f} has no effect without --cluster (it is about reading the cluster's objects)`);
  let format = values["output-format"] ?? "text";
  let outputPath = values.output;
  // `--output junit|sarif` names a report format (as CI docs write it); a file of that name needs ./junit.
  if (outputPath === "junit" || outputPath === "sarif") {
    format = outputPath;
    outputPath = undefined;
  } else if (outputPath === "table" || outputPath === "json") {
    warnings.push(
      `warning: -o ${outputPath} is read as --output-format ${outputPath}; -o/--output now names where to write mutated and generated resources`,
    );
    format = outputPath;
    outputPath = undefined;
  }
  // Kyverno's --output-format is yaml (the default) or json, for -p; without -p yaml is the text output.
  if (format === "table" || format === "yaml") format = "text";
  const reportApi = values["report-api"];
  if (!(REPORT_APIS as readonly string[]).includes(reportApi))
    return {
      kind: "usage-error",
      message: `--report-api must be one of ${REPORT_APIS.join(", ")} (got ${JSON.stringify(reportApi)})`,
      showHelp: false,
    };
  if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) {
    return {
      kind: "usage-error",
      message: `--output-format must be one of ${OUTPUT_FORMATS.join(", ")} (got ${JSON.stringify(format)})`,
      showHelp: false,
    };
  }
  const explainProblem = values.explain ? explainConflict(format, values) : undefined;
  if (explainProblem !== undefined) return { kind: "usage-error", message: explainProblem, showHelp: false };
  const exceptionPaths = [...list.exception, ...list.exceptions];
  const crdPaths = [...list["crd-paths"], ...list["crd-path"]].filter((p) => p.trim() !== "");
  if (crdPaths.length > 0 && values.kubeconfig !== undefined)
    return {
      kind: "usage-error",
      message: "crd-paths and kubeconfig flags are mutually exclusive, please use only one of them",
      showHelp: false,
    };
  const stdinUsers = [positionals, resourcePaths, exceptionPaths, jsonPaths, crdPaths].filter((paths) =>
    paths.includes("-"),
  ).length;
  if (stdinUsers > 1)
    return {
      kind: "usage-error",
      message: "only one of POLICY, RESOURCE, EXCEPTION, JSON and --crd-paths can be read from stdin (-)",
      showHelp: false,
    };
  return {
    kind: "run",
    warnings,
    options: {
      policyPaths: positionals,
      policySets,
      resourcePaths,
      jsonPaths,
      httpPayloadPaths,
      envoyPayloadPaths,
      targetPaths: [...list["target-resource"], ...list["target-resources"]],
      exceptionPaths,
      ...(values["values-file"] !== undefined ? { valuesFile: values["values-file"] } : {}),
      set: list.set,
      ...(values.userinfo !== undefined ? { userinfo: values.userinfo } : {}),
      ...(values["context-file"] !== undefined ? { contextFile: values["context-file"] } : {}),
      parameterPaths: list["parameter-resource"],
      crdPaths,
      ...(outputPath !== undefined ? { outputPath } : {}),
      format: format as OutputFormat,
      policyReport: values["policy-report"],
      reportApi: reportApi as ReportApi,
      auditWarn: values["audit-warn"],
      detailed: values["detailed-results"],
      plain: values["remove-color"] === true,
      explain: values.explain,
      enforce: values.enforce,
      registry: values.registry,
      ...(values.cluster
        ? {
            cluster: {
              ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
              ...(values.context !== undefined ? { context: values.context } : {}),
              ...(values.namespace !== undefined ? { namespace: values.namespace } : {}),
              clusterWide: values["cluster-wide-resources"] === true,
              showPerformance: values["show-performance"] === true,
            },
          }
        : {}),
      ...(values["git-branch"] !== undefined ? { gitBranch: values["git-branch"] } : {}),
      table: values.table,
      resourcesOnly: values.stdin,
      warnExitCode: warnExit.code,
      warnNoPass: values["warn-no-pass"],
      exceptionsWithResources: values["exceptions-with-resources"],
      generateExceptions: values["generate-exceptions"] === true,
      exceptionTtl: ttl.ns,
      ...(values.username !== undefined || values.password !== undefined
        ? { gitAuth: { username: values.username ?? "", password: values.password ?? "" } }
        : {}),
    },
  };
}

/** --explain is printed with the text, summary and JSON results only: other outputs are read by tools. */
function explainConflict(
  format: string,
  values: {
    readonly "policy-report": boolean;
    readonly table: boolean;
    readonly stdin: boolean;
    readonly "generate-exceptions"?: boolean;
  },
): string | undefined {
  if (values["generate-exceptions"] === true) return "--explain cannot be combined with --generate-exceptions";
  if (values["policy-report"]) return "--explain cannot be combined with -p/--policy-report";
  if (values.table) return "--explain cannot be combined with -t/--table";
  if (values.stdin) return "--explain cannot be combined with -i/--stdin";
  if (format !== "text" && format !== "summary" && format !== "json")
    return `--explain prints with the text, summary or json output, not ${format} (use --output-format json to read it as JSON)`;
  return undefined;
}
