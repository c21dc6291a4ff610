export const APPLY_HELP = `Usage: bylaw apply POLICY... -r RESOURCE... [flags]

Check Kubernetes manifests against Kyverno ClusterPolicy/Policy documents, with no cluster:
mutate rules patch each resource (policies in order, each seeing the previous patches), validate
rules check the patched resource, generate rules say what they would create.
POLICY and RESOURCE are files (YAML, multi-document, or JSON) or folders (read recursively);
"-" reads from standard input (for either, not both).

Flags:
  -r, --resource PATH         a resource file or folder (repeatable; required)
  -t, --target-resource PATH  objects that already exist in the cluster (repeatable): the targets of
                              mutate-existing rules (mutate.targets) and the sources of generate clones
  -f, --values-file PATH      a cli.kyverno.io/v1alpha1 Values file (globalValues, per-rule/per-resource
                              values, namespaceSelector labels)
  -u, --userinfo PATH         a cli.kyverno.io/v1alpha1 UserInfo file (roles, clusterRoles, userInfo)
  -o, --output PATH           write mutated and generated resources as YAML: PATH ending in .yaml/.yml
                              is one multi-document file, anything else a folder with one file per
                              resource (<kind>-<namespace>-<name>.yaml). Written only when every input
                              loaded; nothing is left half-written. Without -o they go to stdout after
                              the results.
      --output-format FORMAT  table (default) or json (json also carries the resources)
  -p, --policy-report         print PolicyReport / ClusterPolicyReport YAML instead of the table
      --audit-warn            report failures of Audit rules as warnings (they then do not fail the run)
      --detailed-results      show a row for passing and skipped rules too (default: only fail, warn, error)
  -h, --help                  show this help

Exit codes:
  0  no rule failed and no rule errored
  1  a rule failed (fail), or a rule could not be evaluated (error)
  2  bad usage or unreadable input (a message names the file and document)

Examples:
  bylaw apply examples/policies -r examples/resources
  bylaw apply examples/mutate/add-labels/policy.yaml -r examples/mutate/add-labels/resources.yaml -o out/
  kubectl get pods -A -o yaml | bylaw apply policies/ -r -`;
