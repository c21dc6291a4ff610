/** `bylaw test [PATH...]`: run kyverno-test.yaml suites, like `kyverno test`. */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { packName, ParseCache, type ParseCacheReport } from "../../../platform/files/parse-cache.js";
import { useParsedFiles } from "../../../platform/files/parsed-files-hook.js";
import { buildCacheDir } from "../../launch/save-compile-cache.js";
import { offlineEngine } from "../../offline/offline-engine.js";
import { ok } from "../../../engine/index.js";
import type { RegistryAccess } from "../../../platform/registry/index.js";
import { runSuites } from "../../test-suite/run-suite.js";
import type { SuiteResult } from "../../test-suite/types.js";
import type { Io } from "../../io.js";
import { discoverTests } from "./discover.js";
import { isGitUrl } from "../../git-url.js";
import { cloneTestPaths, type TestPaths } from "./git-paths.js";
import { usageLine } from "../../usage.js";
import { runSuiteFiles, workerCount } from "./run-suites.js";
import { summarize } from "./output.js";
import { printResults, TEST_FORMATS, type TestFormat } from "./print-results.js";
import { parseCaseSelector, selectCases } from "./case-selector.js";
import { withPolicyFixHint } from "../../../platform/policy-documents/index.js";

export const TEST_HELP = `Usage: bylaw test [PATH...] [flags]

Run Kyverno test suites (cli.kyverno.io/v1alpha1 Test files, found recursively below each PATH;
default: the current folder) and compare every expected result with what Bylaw computes.
A PATH that is a Git URL is cloned (shallow, into a temporary folder removed after the run; needs
git on the PATH) and searched like a folder, as kyverno test does: https://HOST/OWNER/REPO[/BRANCH]
(default branch main), or with --git-branch the rest of the URL is the folder; suites are named
<repository>@<branch>/<folder>, and a URL that cannot be cloned is an error naming it (exit 1).

Each expected row (a results entry × a resource it names) passes when Bylaw's result for that
policy, rule and resource equals the expected one, compared as kyverno test compares it: policy by
name, resource by name or namespace/name, rule by name or its autogen- / autogen-cronjob- variants,
result as a policy-report result ("fail" reads "warn" when the policy's policies.kyverno.io/scored
annotation is "false"). A resource the rule does not match counts as "Excluded" (a pass, as in
Kyverno). As kyverno test, a name stands for every resource of that name the policy answered for,
whatever the row's kind (a Role and a ClusterRole both named x are a row each; either failing
fails). A row for a rule Bylaw does not run yet gets the actual result "error", so it fails unless
it expects error.

Test files are read as kyverno test reads them: every document of a test file is a test; any
apiVersion is accepted; a field whose name differs only in letter case is read as that field and an
unknown field is ignored, each with a warning naming it and the field meant (the removed checks and
patchedResource are errors); a results entry with no resources checks every resource the rule matched
(and fails as "Not found" when there is none); foreachValues give each foreach element the value at
its index; rule values also apply to the rule's autogen- rules; with request.operation UPDATE the
old object is set first and values for request.oldObject.* are layered on it. A resource without
metadata.namespace is in "default". Context, clusterResources, apiCallResponses and
globalContextEntries answer what a policy would read from a cluster (docs/policies.md).

Per resource, policies run in kyverno test's stages, each stage's in policy order and each seeing
every patch before it: ClusterPolicy/Policy mutate (and verifyImages), ClusterPolicy/Policy
validate, MutatingAdmissionPolicy, MutatingPolicy, ValidatingAdmissionPolicy, ValidatingPolicy,
GeneratingPolicy, ClusterPolicy/Policy generate (so a kyverno.io validate rule does not see a
MutatingPolicy's patch). A MutatingPolicy's patchedResources is the resource after all of the
resource's MutatingPolicies (Kyverno runs them as one batch). A row with patchedResources or generatedResource
first compares the produced object with the file's object of the same kind, name and namespace
(unset namespace = default; nulls and empty maps/lists ignored); a difference makes the row's
result "fail" (reason "Resource diff", naming the fields). A mutated resource the patchedResources
file does not hold leaves the row unchecked, as kyverno test does, with a warning naming the file and
the resource (failOnMissingResources: true makes it a failing "Resource error"; a missing generated
resource always is). cloneSourceResource files and the suite's targetResources are the objects
that already exist, for clones and mutate.targets.

policies may name Kubernetes ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding files,
run as Kyverno's CLI runs them (docs/vap-cli-vs-api-server.md): a binding binds the policy it
names, and the last binding whose matchResources match gives the one result; an unbound policy is
evaluated on its own; paramResources are the objects a binding's paramRef chooses from, by name or
selector, of any kind (a selector's matches come as one list, params.items). With clusterResources,
Kyverno's test evaluates bindings as against a cluster, and so does bylaw test: the policy's
matchConstraints decide too, the resource's Namespace comes from the cluster objects, and a paramRef
reads the policy's paramKind in the resource's (or paramRef's) namespace; what Kyverno cannot
evaluate there is an error. Bindings load as Kyverno's CLI loads them (no parameterNotFoundAction,
Deny with Warn are accepted). A row's rule is ignored for a ValidatingAdmissionPolicy, as in
Kyverno; exceptions with one refuse the suite.

ValidatingPolicies with spec.evaluation.mode JSON run on the jsonPayloads and also on each resource
taken as a raw payload, as Kyverno's CLI does. Those with spec.evaluation.mode HTTP run on the
httpPayloads (HTTP requests, one JSON document per file) only: pass "request allowed", fail "request
denied, reason: …", skip "request does not match"; those with spec.evaluation.mode Envoy on the
envoyPayloads (Envoy CheckRequests as protobuf JSON) only: fail "request denied with status code
N". A row names a payload by its file.

Flags:
  -f, --file-name NAME     test file name to look for (default kyverno-test.yaml)
  -b, --git-branch BRANCH  the branch of the Git URLs among the PATHs (file:///PATH/REPO.git also works)
  -o, --output-format FORMAT
                           table (default), json, yaml or markdown: what kyverno test prints, for
                           scripts written against it: each suite's "Loading …" lines, then its rows
                           (ID, POLICY, RULE, RESOURCE, RESULT, REASON, and Message with
                           --detailed-results) as a table, a JSON array, a YAML list or a Markdown
                           table; RULE is the rule that gave the result (autogen-NAME for a Pod
                           controller), RESOURCE is apiVersion/Kind/namespace/name; then the summary
                           line. bylaw-json or bylaw-yaml: one document of every suite (below).
                           junit: one well-formed JUnit XML document of every suite, on purpose not
                           Kyverno's (it prints an XML document per suite between its "Loading …"
                           lines, and without --detailed-results leaves <failure> unclosed, which no
                           JUnit reader parses). (--output FORMAT: the old spelling, warned)
  -t, --test-case-selector SELECTOR
                           run only the rows whose policy, rule and resource names match, as kyverno
                           test: "policy=NAME,rule=NAME,resource=NAME" (any of the three; wildcards * and
                           ?; default "policy=*,rule=*,resource=*")
      --fail-only          show no suite's rows; after the summary line, the failing rows of every
                           suite (as kyverno test: "Aggregated Failed Test Cases")
      --detailed-results   add the rule message to the rows
      --explain            after each suite's table, how each policy's results on each resource came
                           about: the match or exclude clause that decided, PolicyExceptions
                           considered, context values, preconditions and deny conditions with each
                           operand, the CEL each policy kind ran with what it gave, each mutate
                           rule's own patch, and the path and value a pattern failed at. With
                           -o bylaw-json|bylaw-yaml it is each suite's "explanations" list; not
                           with json, yaml, markdown or junit. Suites then run in this thread
      --require-tests      exit 1 when no test files are found
      --remove-color       the table's header without Kyverno's colours (kyverno test colours it, piped
                           or not)
      --registry           read image registries for imageRegistry context entries, CEL
                           image.GetMetadata and verifyImages (cosign signatures and attestations,
                           tag digests; credentials: the local docker config, as Kyverno's CLI); without it such
                           an entry or check is an error unless a values file gives the entry
  -h, --help               show this help

Exit codes:
  0  all rows pass
  1  a row failed, a suite could not be loaded (bad test file, missing policy or resource file), or
     (--require-tests) no tests were found
  2  a policy file of a suite is invalid (YAML error, invalid policy, a document that is not a policy;
     the same checks as bylaw apply), or bad usage. The error names the file, document and field (and
     is in policyErrors in JSON, an <error> in JUnit); that suite's rows fail with reason "Invalid
     policy: ...", and the suite's other rows and the other suites still run; a PATH that does not
     exist (the other PATHs still run)
  3  internal error (a bug in Bylaw: please report it with the command line and the message)

Progress lines go to stderr when ten or more suites run, only on a terminal, never in CI (CI=true) or
with a machine format (-o json, yaml, markdown, junit, bylaw-json, bylaw-yaml).

-o json prints, for each suite after its "Loading …" lines, Kyverno's array:
  [
    {
      "ID": 1,
      "POLICY": "require-team-label",
      "REASON": "Ok",
      "RESOURCE": "v1/Pod/default/web",
      "RESULT": "Pass",
      "RULE": "check-team"
    }
  ]
  (keys sorted, <, > and & escaped as \\u003c, \\u003e, \\u0026, as Kyverno's Go encoder writes them).

-o bylaw-json prints one object, with one result per expected row:
  {"summary": {"passed": 5, "failed": 1, "skipped": 0},
   "suites": [{"path": "examples/tests", "name": "examples", "error": null, "policyErrors": [],
               "warnings": [], "results": [{"policy": "require-team-label", "rule": "check-team",
               "resource": "web", "kind": "Pod", "expected": "pass", "actual": "pass", "ok": true,
               "reason": "Ok", "message": "validation rule 'check-team' passed."}]}]}
  path is the folder holding the kyverno-test.yaml; actual is null when no rule result was found
  (reason "Not found" or "Excluded"); error is set when the suite could not run.

Environment:
  BYLAW_COMPILE_CACHE=DIR|off  where the compiled code and the parsed YAML of earlier runs are kept
                           (default ~/.cache/bylaw/compile-cache): a file whose text is unchanged is
                           not parsed again; off turns both off
  BYLAW_TEST_WORKERS=N     worker threads for 16 or more suites (default: one per core beyond the
                           first from three cores on, none on two); 0 runs everything in one thread.
                           With 16 or more suites the output is the same as from one thread, in the
                           same order; on two cores a worker cost more CPU than it saved

Examples:
  bylaw test ./policies
  bylaw test . --fail-only --detailed-results
  bylaw test examples/tests --explain
  bylaw test ./policies -o junit > report.xml
  bylaw test https://github.com/kyverno/policies/pod-security --git-branch main`;

export async function testCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      "file-name": { type: "string", short: "f", default: "kyverno-test.yaml" },
      "git-branch": { type: "string", short: "b" },
      "output-format": { type: "string", short: "o" },
      output: { type: "string" },
      "fail-only": { type: "boolean", default: false },
      "detailed-results": { type: "boolean", default: false },
      explain: { type: "boolean", default: false },
      "require-tests": { type: "boolean", default: false },
      registry: { type: "boolean", default: false },
      "test-case-selector": { type: "string", short: "t", default: "policy=*,rule=*,resource=*" },
      "remove-color": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.out(TEST_HELP);
    return 0;
  }
  // Kyverno's name is --output-format (-o); --output is the old spelling, kept with a warning.
  if (values.output !== undefined)
    io.err(
      "warning: bylaw test --output is deprecated: use -o/--output-format (the same flag name as in kyverno test)",
    );
  const format = checkedFormat(values, io);
  if (format === undefined) return 2;
  if (values.explain && !EXPLAINED_FORMATS.has(format)) {
    io.err(usageLine("test", `--explain prints with the table, bylaw-json or bylaw-yaml output, not ${format}`));
    return 2;
  }
  const selector = parseCaseSelector(values["test-case-selector"]);
  if (!selector.ok) {
    io.err(usageLine("test", selector.error));
    return 2;
  }
  if (values["git-branch"] !== undefined && !positionals.some(isGitUrl)) {
    io.err(
      usageLine(
        "test",
        "--git-branch needs a Git URL among the PATHs (https://<host>/<owner>/<repository>/<folder>, or file://)",
      ),
    );
    return 2;
  }
  const local = await cloneTestPaths(positionals.length > 0 ? positionals : ["."], values["git-branch"]);
  try {
    return await runTests(local, { ...values, selector: selector.selector }, io, format);
  } finally {
    await local.remove();
  }
}

type Format = TestFormat;
const isFormat = (f: string): f is Format => (TEST_FORMATS as readonly string[]).includes(f);
/** The formats that have a place for --explain's text (Kyverno's json, yaml and markdown do not). */
const EXPLAINED_FORMATS: ReadonlySet<Format> = new Set(["table", "bylaw-json", "bylaw-yaml"]);

/** The output format, or undefined after a usage error (an unknown format). */
function checkedFormat(values: { "output-format"?: string; output?: string }, io: Io): Format | undefined {
  const format = values["output-format"] ?? values.output ?? "table";
  if (!isFormat(format)) {
    io.err(
      usageLine("test", `--output-format must be one of ${TEST_FORMATS.join(", ")} (got ${JSON.stringify(format)})`),
    );
    return undefined;
  }
  return format;
}

interface TestFlags {
  readonly "file-name": string;
  readonly "fail-only": boolean;
  readonly "detailed-results": boolean;
  readonly "remove-color": boolean;
  readonly explain: boolean;
  readonly "require-tests": boolean;
  readonly registry: boolean;
  readonly selector: Parameters<typeof selectCases>[1];
}

async function runTests(local: TestPaths, values: TestFlags, io: Io, format: Format): Promise<number> {
  for (const e of local.errors) io.err(`bylaw test: ${e}`);
  const found = await discoverTests(local.paths, values["file-name"]);
  const files = found.files;
  const errors = [...local.errors, ...found.errors.map((e) => local.rename(e))];
  for (const e of found.errors) io.err(`bylaw test: ${local.rename(e)}`);
  if (files.length === 0) {
    io.err("bylaw test: no test files found");
    if (found.errors.length > 0) return 2;
    return values["require-tests"] || errors.length > 0 ? 1 : 0;
  }
  // The registry client (node:https and friends) loads only for --registry.
  const registry = values.registry
    ? await (await import("../../offline/registry-setup.js")).cliRegistryAccess(true)
    : ok<RegistryAccess | undefined>(undefined);
  const passes =
    registry.ok && registry.value !== undefined
      ? (await import("../../../platform/registry/index.js")).withRegistryPasses
      : undefined;
  if (!registry.ok) {
    io.err(usageLine("test", registry.error.message));
    return 2;
  }
  // With --registry the suites run in this thread, where the images they fetch are shared.
  // With --explain too: the explanations are gathered where the suites run.
  const workers = registry.value !== undefined || values.explain ? 0 : workerCount(files.length);
  if (typeof workers !== "number") {
    io.err(usageLine("test", workers.error));
    return 2;
  }
  const progress = files.length >= 10 && io.showsProgress?.(format) === true;
  // Files parsed by an earlier run of this build, unchanged since, are not parsed again (parse-cache.ts).
  // Not for a Git clone: its files live in a new temporary folder each run, so no entry would be read again.
  const cacheDir = local.cloned ? undefined : buildCacheDir();
  const parsePack =
    cacheDir === undefined ? undefined : join(cacheDir, "parse", packName(local.paths.map((p) => resolve(p))));
  const parsed = parsePack === undefined ? undefined : new ParseCache(parsePack);
  useParsedFiles(parsed);
  let ran: SuiteResult[];
  try {
    ran = await runSuiteFiles(files, {
      workers,
      ...(parsed !== undefined && parsePack !== undefined
        ? { parsePack, adoptParsed: (report: ParseCacheReport) => parsed.adopt(report) }
        : {}),
      runHere: (file) => {
        const run = (): Promise<SuiteResult[]> =>
          runSuites(
            file,
            (spec, cluster) =>
              offlineEngine(spec, cluster, registry.value !== undefined ? { registry: registry.value } : {}),
            undefined,
            { explain: values.explain },
          );
        return passes === undefined ? run() : passes(registry.value, run);
      },
      ...(progress
        ? { onDone: (n: number, total: number, file: string) => io.progress(`[${n}/${total}] ${file}`) }
        : {}),
    });
  } finally {
    useParsedFiles(undefined);
    parsed?.save();
  }
  io.progressDone();
  // Suites from a Git clone are named by repository and branch, not by the temporary folder.
  const renamed = !local.cloned ? ran : ran.map((s) => JSON.parse(local.rename(JSON.stringify(s))) as SuiteResult);
  const suites = selectCases(renamed, values.selector);
  for (const s of suites) {
    for (const w of s.warnings) io.err(`warning: ${withPolicyFixHint(w)}`);
    for (const e of s.policyErrors ?? []) io.err(`error: ${withPolicyFixHint(e)}`);
    if (s.error !== undefined) io.err(`error: ${s.error}`);
  }
  printResults(
    suites,
    {
      format,
      detailed: values["detailed-results"],
      failOnly: values["fail-only"],
      plain: values["remove-color"],
    },
    io,
  );
  // An invalid policy fails the run harder than a failing row: the suite did not test what it says.
  // So does a PATH that does not exist (an input error, exit 2 as in bylaw apply).
  if (suites.some((s) => (s.policyErrors?.length ?? 0) > 0) || found.errors.length > 0) return 2;
  const summary = summarize(suites);
  // kyverno test's own last words on stderr when a row failed.
  if (summary.failed > 0) io.err(`Error: ${summary.failed} tests failed`);
  return summary.failed > 0 || errors.length > 0 ? 1 : 0;
}
