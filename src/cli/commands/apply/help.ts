export const APPLY_HELP = `Usage: bylaw apply [POLICY...] [--policy-set NAME...] -r RESOURCE... [flags]
       bylaw apply [POLICY...] --cluster [-n NAMESPACE] [--kubeconfig FILE] [--context NAME] [flags]

Check Kubernetes manifests, or with --cluster a cluster's objects, against Kyverno ClusterPolicy/Policy
documents:
mutate rules patch each resource (policies in order, each seeing the previous patches), validate
rules check the patched resource, generate rules say what they would create. A validate.manifests
rule verifies the signatures in a resource's cosign.sigstore.dev annotations with the policy's inline
PEM keys; what needs the network (dryRun, repository, keyless, k8s:// or KMS keys) is an error.
POLICY and RESOURCE are files (YAML, multi-document, or JSON) or folders (read recursively);
"-" reads from standard input (for one input only). A POLICY that is a Git URL is cloned (below).
POLICY may also hold ValidatingPolicy and Kubernetes ValidatingAdmissionPolicy documents, run as
Kyverno's CLI runs them (docs/vap-cli-vs-api-server.md): a ValidatingAdmissionPolicyBinding among
them binds the policy it names; the last binding whose matchResources match gives the policy's one
result; a binding gets no params (params is null), as Kyverno's apply hands none over, while the
resources are the objects a validate.cel paramRef selects. A ValidatingAdmissionPolicy no binding
names is evaluated on its own against its matchConstraints.

Policies:
      --policy-set NAME       use a policy set Bylaw ships (repeatable; combines with POLICY paths):
                              pss-baseline, pss-restricted, best-practices... \`bylaw policy-sets\` lists them
      --enforce               run every loaded policy (from sets and POLICY paths alike) as Enforce:
                              spec.validationFailureAction and each rule's validate.failureAction become
                              Enforce. failureActionOverrides and validationFailureActionOverrides still
                              apply where they match (an override to Audit for a namespace stays Audit)
  -e, --exception PATH        PolicyException documents to honour (repeatable; also --exceptions):
                              kyverno.io/v2 or v2beta1, and policies.kyverno.io (v1, v1beta1, v1alpha1)
                              for ValidatingPolicy. A rule an exception covers is skipped, as in Kyverno

Policies from Git (as kyverno apply; needs git on the PATH):
  POLICY https://HOST/OWNER/REPO[/BRANCH]   clone REPO (shallow, into a temporary folder removed after
                              the run) and read every YAML of BRANCH (default main) like a folder;
                              documents that are not policies (tests, resources) are left out
  -b, --git-branch BRANCH     the branch; the URL's path after OWNER/REPO is then the folder to read:
                              https://github.com/kyverno/policies/pod-security/ --git-branch main
                              file:///PATH/REPO.git[/...] also works (Bylaw only; Kyverno reads http(s))

Resources:
  -r, --resource PATH         a resource file or folder (repeatable; required unless --cluster or --json).
                              A manifest without metadata.namespace is in "default", as in Kyverno
      --json PATH             JSON payloads that are not Kubernetes objects (repeatable; each document one
                              payload) for ValidatingPolicies with spec.evaluation.mode JSON; those
                              policies also run on each -r resource as a raw payload, as Kyverno's CLI
  -t, --target-resource PATH  objects that already exist in the cluster (repeatable): the targets of
                              mutate-existing rules (mutate.targets) and the sources of generate clones
  -f, --values-file PATH      a cli.kyverno.io/v1alpha1 Values file (globalValues, per-rule values and
                              foreachValues, per-resource values, namespaceSelector labels)
  -s, --set KEY=VALUE         a variable, as a string (repeatable; after the values file's global and
                              resource values, as Kyverno's --set; request.object.* keys are ignored)
  -u, --userinfo PATH         a cli.kyverno.io/v1alpha1 UserInfo file (roles, clusterRoles, userInfo)
      --registry              read image registries (Kyverno's flag) for imageRegistry context entries,
                              CEL image.GetMetadata and verifyImages (cosign signatures and in-toto
                              attestations, tag digests),
                              with the local docker config's credentials ($DOCKER_CONFIG/config.json or
                              ~/.docker/config.json); without it such an entry is an error naming this
                              flag unless a values file gives its value, and so is a verifyImages check.
                              Works with --cluster too: images are then read beside the cluster reads

Cluster (read-only; as kyverno apply --cluster):
  -c, --cluster               also check the objects the policies match in a cluster: the kinds of their
                              match blocks, found through discovery and listed in all namespaces. With
                              --cluster an -r value that is not a file or folder is an object name (only
                              objects of that name are checked); an -r file or folder adds its manifests.
                              Namespace labels come from the cluster unless a values file gives them.
                              configMap and apiCall (urlPath GET) context entries, and CEL resource.Get/List,
                              read the cluster; apiCall POST and service calls are rule errors;
                              imageRegistry entries and CEL image.GetMetadata need --registry
  -n, --namespace NAMESPACE   list namespaced kinds in NAMESPACE only (cluster-scoped kinds are not listed)
      --kubeconfig FILE       the kubeconfig (default: KUBECONFIG, else ~/.kube/config, else in-cluster);
                              users authenticate with a token, tokenFile or client certificate
      --context NAME          the kubeconfig context to use (default: its current-context)

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
  2  bad usage, an unknown policy set, unreadable input (a message names the file and document), a Git
     clone that failed, or a cluster that cannot be read (unreachable, forbidden: the message names them)
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
  bylaw apply policies/ --cluster -n shop
  bylaw apply policies/ --cluster -n shop --registry
  bylaw apply --policy-set pss-restricted --cluster --context prod --output-format json
  bylaw apply https://github.com/kyverno/policies/pod-security/ --git-branch main -r manifests/

Environment:
  BYLAW_POLICY_SETS_DIR       read policy sets from this folder instead of the policies/ Bylaw ships
                              (one <set>/set.yaml per set: apiVersion bylaw.dev/v1alpha1, kind PolicySet)`;
