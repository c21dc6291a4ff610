export const APPLY_HELP = `Usage: bylaw apply [POLICY...] [--policy-set NAME...] -r RESOURCE... [flags]

Check Kubernetes manifests against Kyverno ClusterPolicy/Policy documents, with no cluster:
mutate rules patch each resource (policies in order, each seeing the previous patches), validate
rules check the patched resource, generate rules say what they would create.
POLICY and RESOURCE are files (YAML, multi-document, or JSON) or folders (read recursively);
"-" reads from standard input (for one input only).

Policies:
      --policy-set NAME       use a policy set Bylaw ships (repeatable; combines with POLICY paths):
                              pss-baseline, pss-restricted, best-practices... \`bylaw policy-sets\` lists them
      --enforce               run every loaded policy (from sets and POLICY paths alike) as Enforce:
                              spec.validationFailureAction and each rule's validate.failureAction become
                              Enforce. failureActionOverrides and validationFailureActionOverrides still
                              apply where they match (an override to Audit for a namespace stays Audit)
  -e, --exception PATH        PolicyException documents (kyverno.io/v2 or v2beta1) to honour (repeatable;
                              also --exceptions). A rule an exception covers is skipped, as in Kyverno

Resources:
  -r, --resource PATH         a resource file or folder (repeatable; required)
  -t, --target-resource PATH  objects that already exist in the cluster (repeatable): the targets of
                              mutate-existing rules (mutate.targets) and the sources of generate clones
  -f, --values-file PATH      a cli.kyverno.io/v1alpha1 Values file (globalValues, per-rule values and
                              foreachValues, per-resource values, namespaceSelector labels)
  -s, --set KEY=VALUE         a variable, as a string (repeatable; after the values file's global and
                              resource values, as Kyverno's --set; request.object.* keys are ignored)
  -u, --userinfo PATH         a cli.kyverno.io/v1alpha1 UserInfo file (roles, clusterRoles, userInfo)
      --registry              read image registries (Kyverno's flag) for imageRegistry context entries and
                              CEL image.GetMetadata, with the local docker config's credentials
                              ($DOCKER_CONFIG/config.json or ~/.docker/config.json); without it such an
                              entry is an error naming this flag unless a values file gives its value

Output (results go to stdout, diagnostics to stderr):
      --output-format FORMAT  text (default; "table" is the same): each resource with findings, then
                                each failing, erroring or warning rule, the PSS control that failed and
                                the message (the shipped policies' messages say how to fix), then totals
                              json: {summary, results[], resources[]} for scripts
                              junit: JUnit XML, a testsuite per policy, a testcase per rule and resource
                              sarif: SARIF 2.1.0 for code scanning (GitHub, GitLab...): Enforce failures
                                are errors, Audit failures warnings, located at the manifest file and line
  -p, --policy-report         print PolicyReport / ClusterPolicyReport YAML instead
      --detailed-results      text: list passing and skipped rules too (default: only fail, warn, error)
      --audit-warn            report failures of Audit rules as warnings (they then do not fail the run)
  -o, --output junit|sarif    the same as --output-format junit|sarif
  -o, --output PATH           write mutated and generated resources as YAML: PATH ending in .yaml/.yml
                              is one multi-document file, anything else a folder with one file per
                              resource (<kind>-<namespace>-<name>.yaml). Written only when every input
                              loaded; nothing is left half-written. Without -o they go to stdout after
                              the text results.
  -h, --help                  show this help

Exit codes:
  0  no rule failed and no rule errored
  1  a rule failed (fail; Audit rules too, unless --audit-warn), or a rule could not be evaluated (error)
  2  bad usage, an unknown policy set, or unreadable input (a message names the file and document)
  3  internal error (a bug in Bylaw: please report it with the command line and the message)

Examples:
  bylaw apply examples/policies -r examples/resources
  bylaw apply --policy-set pss-restricted -r manifests/
  bylaw apply --policy-set pss-baseline --policy-set best-practices --enforce -r manifests/
  bylaw apply --policy-set pss-restricted -r manifests/ -e exceptions/ci-tools.yaml
  bylaw apply --policy-set pss-baseline -r manifests/ --output-format junit > bylaw-junit.xml
  bylaw apply policies/ -r manifests/ --output-format sarif > bylaw.sarif || test $? -eq 1
  bylaw apply examples/mutate/add-labels/policy.yaml -r examples/mutate/add-labels/resources.yaml -o out/
  kubectl get pods -A -o yaml | bylaw apply policies/ -r -

Environment:
  BYLAW_POLICY_SETS_DIR       read policy sets from this folder instead of the policies/ Bylaw ships
                              (one <set>/set.yaml per set: apiVersion bylaw.dev/v1alpha1, kind PolicySet)`;
