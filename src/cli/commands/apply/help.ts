export const APPLY_HELP = `Usage: bylaw apply [POLICY...] [--policy-set NAME...] -r RESOURCE... [flags]
       bylaw apply [POLICY...] --cluster [-n NAMESPACE] [--kubeconfig FILE] [--context NAME] [flags]

Check Kubernetes manifests, or with --cluster a cluster's objects, against Kyverno ClusterPolicy/Policy
documents:
mutate rules patch each resource (policies in order, each seeing the previous patches), validate
rules check the patched resource, generate rules say what they would create. A validate.manifests
rule verifies the signatures in a resource's cosign.sigstore.dev annotations with the policy's inline
PEM keys; what needs the network (dryRun, repository, keyless, k8s:// or KMS keys) is an error.
POLICY and RESOURCE are files (YAML, multi-document, or JSON) or folders (read recursively);
"-" reads from standard input (for one input only). A kind: List is expanded to its items. A POLICY
that is a Git URL is cloned (below). As in kyverno apply, the list flags (-r, -e, --json, --set,
--target-resource, --parameter-resource, --crd-paths) take comma lists: -r a.yaml,b.yaml is two
files; quote an entry that holds a comma ("-r '\"a,b.yaml\"'").
POLICY may also hold ValidatingPolicy and Kubernetes ValidatingAdmissionPolicy documents, run as
Kyverno's CLI runs them (docs/vap-cli-vs-api-server.md): a ValidatingAdmissionPolicyBinding among
them binds the policy it names; the last binding whose matchResources match gives the policy's one
result; a binding gets no params (params is null), as Kyverno's apply hands none over, while the
resources are the objects a validate.cel paramRef selects. A ValidatingAdmissionPolicy no binding
names is evaluated on its own against its matchConstraints.
How each kind of rule and policy is evaluated, and what Bylaw does not run yet (an error result,
never a pass), is in docs/policies.md.

Policies:
      --policy-set NAME       use a policy set Bylaw ships (repeatable; combines with POLICY paths):
                              pss-baseline, pss-restricted, best-practices... \`bylaw policy-sets\` lists them;
                              a policy two sets share runs once
      --enforce               run every loaded policy (from sets and POLICY paths alike) as Enforce:
                              spec.validationFailureAction and each rule's validate.failureAction become
                              Enforce. failureActionOverrides and validationFailureActionOverrides still
                              apply where they match (an override to Audit for a namespace stays Audit)
  -e, --exception PATH        PolicyException documents to honour (repeatable; also --exceptions):
                              kyverno.io/v2 or v2beta1, and policies.kyverno.io (v1, v1beta1, v1alpha1)
                              for ValidatingPolicy; files, folders or "-". A rule an exception covers is
                              reported skip, as in Kyverno. An invalid exception is an error (exit 2)
                              naming the file, document and field
      --exceptions-with-resources  also honour the PolicyExceptions among the -r documents (as kyverno
                              apply; not those read from stdin)
      --exceptions-within-policies  accepted: Bylaw always honours the PolicyExceptions in POLICY paths

Policies from Git (as kyverno apply; needs git on the PATH):
  POLICY https://HOST/OWNER/REPO[/BRANCH]   clone REPO (shallow, into a temporary folder removed after
                              the run) and read every YAML of BRANCH (default main) like a folder;
                              documents that are not policies (tests, resources, values) are left out,
                              with one warning counting them. Files are named <repository>@<branch>/<path>;
                              a clone that fails is exit 2 with git's message
  -b, --git-branch BRANCH     the branch; the URL's path after OWNER/REPO is then the folder to read:
                              https://github.com/kyverno/policies/pod-security/ --git-branch main
                              file:///PATH/REPO.git[/...] also works (Bylaw only; the repository is the
                              path up to its first *.git segment; Kyverno reads http(s))

Resources:
  -r, --resource PATH         a resource file or folder (repeatable; also --resources; required unless
                              --cluster, --json, --http-payload or --envoy-payload). A manifest without
                              metadata.namespace is in "default", as in Kyverno
      --json PATH             JSON payloads that are not Kubernetes objects (repeatable; each document one
                              payload) for ValidatingPolicies with spec.evaluation.mode JSON; those
                              policies also run on each -r resource as a raw payload, as Kyverno's CLI
      --http-payload PATH     HTTP requests (repeatable; one JSON document per file, kyverno-authz's
                              CheckRequest: {"attributes": {"method", "header", "host", "path",
                              "query", "body" (base64), …}}) for ValidatingPolicies with
                              spec.evaluation.mode HTTP, as Kyverno's CLI: pass "request allowed",
                              fail "request denied, reason: …", skip "request does not match"
      --envoy-payload PATH    Envoy checks (repeatable; one envoy.service.auth.v3.CheckRequest per file,
                              read as protobuf JSON: {"attributes": {"source", "destination",
                              "request": {"http": {"method", "headers", "path", "host", …}}, …}},
                              JSON or proto field names) for ValidatingPolicies with
                              spec.evaluation.mode Envoy, as Kyverno's CLI: pass "request allowed",
                              fail "request denied with status code N", skip "request does not match"
      --target-resource PATH  objects that already exist in the cluster (repeatable; also --target-resources):
                              the targets of mutate-existing rules (mutate.targets) and the sources of
                              generate clones. (-t is --table, as in kyverno apply)
  -f, --values-file PATH      a cli.kyverno.io/v1alpha1 Values file (globalValues, per-rule values and
                              foreachValues, per-resource values, namespaceSelector labels, and
                              subresources: a manifest of a subresource's kind, Scale, is checked as a
                              request on its parent's subresource, Deployment/scale). Rule values
                              also apply to the rule's autogen- rules; a key with a quoted segment
                              (request.object.metadata.annotations."a.b/c") is split as Kyverno splits it
  -s, --set KEY=VALUE[,KEY=VALUE...]
                              variables, as strings (repeatable; after the values file's global and
                              resource values, as Kyverno's --set; request.object.* keys are ignored,
                              with a warning)
  -u, --userinfo PATH         a cli.kyverno.io/v1alpha1 UserInfo file (roles, clusterRoles, userInfo)
      --parameter-resource PATH
                              the objects ValidatingAdmissionPolicy bindings take params from (their
                              paramRef; repeatable). Without it a binding gets none, as in kyverno apply
      --context-file PATH     a cli.kyverno.io/v1alpha1 Context file, as a test file's context: its
                              spec.resources are what CEL resource.Get/List read, its spec.images what
                              image.GetMetadata answers (offline only; with --cluster the cluster answers)
      --registry              read image registries (Kyverno's flag) for imageRegistry context entries,
                              CEL image.GetMetadata and verifyImages (cosign signatures and in-toto
                              attestations, tag digests),
                              with the local docker config's credentials ($DOCKER_CONFIG/config.json or
                              ~/.docker/config.json); without it such an entry is an error naming this
                              flag unless a values file gives its value, and so is a verifyImages check.
                              Works with --cluster too: images are then read beside the cluster reads

Cluster (read-only; as kyverno apply --cluster):
  -c, --cluster               also check the objects the policies match in a cluster: the kinds of their
                              match blocks (autogen rules included; a ValidatingPolicy's resourceRules),
                              found through discovery (the group's preferred version) and listed in all
                              namespaces; results name them Kind/namespace/name. With --cluster an -r
                              value that is not a file or folder is an object name (only objects of that
                              name are checked; an unknown name is exit 2); an -r file or folder adds its
                              manifests. A kind with a subresource (Deployment/scale) is not listed (a
                              warning says so).
                              Namespace labels come from the cluster unless a values file gives them.
                              configMap and apiCall (urlPath GET) context entries, and CEL resource.Get/List,
                              read the cluster, each read once per run; apiCall POST and service calls
                              are rule errors (the cluster is only read), and so are globalReference
                              entries without a value from -f; imageRegistry entries and CEL
                              image.GetMetadata need --registry
  -n, --namespace NAMESPACE   list namespaced kinds in NAMESPACE only (cluster-scoped kinds are not listed)
      --kubeconfig FILE       the kubeconfig (default: KUBECONFIG, else ~/.kube/config, else in-cluster);
                              users authenticate with a token, tokenFile or client certificate (exec
                              plugins are refused, naming the field). A cluster Bylaw cannot read is
                              exit 2, naming the server, kubeconfig and context, and for a refused list
                              the verb and resource
      --context NAME          the kubeconfig context to use (default: its current-context)

Output (results go to stdout, diagnostics to stderr):
      --output-format FORMAT  text (default; "table" and "yaml" are the same), summary, json, junit or sarif
                              (below); with -p, yaml (default) or json. The former -o table|json still
                              works, with a warning
  -p, --policy-report         print the results as kyverno apply -p (Kyverno 1.19) does, instead: one
                              openreports.io/v1alpha1 ClusterReport named merged with the results of the
                              cluster-wide policies, then, each after a --- line, one report per
                              namespaced policy (kind PolicyReport, named as its policy), each with a
                              summary; YAML with sorted keys, or with --output-format json one JSON
                              object per report. Nothing when no rule matched
      --report-api API        -p's reports: openreports (default, as above) or wgpolicyk8s (Bylaw's
                              former output: a wgpolicyk8s.io/v1alpha2 PolicyReport per namespace and a
                              ClusterPolicyReport for cluster-scoped resources)
  -t, --table                 results as kyverno apply's table: its "Applying ..." header and the
                              mutated and generated resources as the text prints them, then one row per
                              rule and resource (ID, POLICY, RULE, RESOURCE as namespace/Kind/name,
                              RESULT, REASON; --detailed-results adds MESSAGE)
      --detailed-results      summary: list passing and skipped rules too (default: only fail, warn, error)
      --explain               after the results, how each came about, per resource and matching policy:
                              the match or exclude clause that decided, PolicyExceptions considered,
                              context entries with their values, preconditions and deny conditions with
                              each operand, the CEL expressions each policy kind ran and what they gave,
                              each mutate rule's own patch, and the path and value a pattern failed at
                              (values cut at 160 characters). With --output-format json it is the
                              "explanations" list. Text, summary and json only
      --audit-warn            report failures of Audit rules as warnings (they then do not fail the run)
      --warn-exit-code N      the exit code when rules warned and none failed or errored (default 0)
      --warn-no-pass          also exit with --warn-exit-code when no rule passed (no object satisfied a policy)
  -o, --output junit|sarif    the same as --output-format junit|sarif
  -o, --output PATH           write mutated and generated resources as YAML: PATH ending in .yaml/.yml
                              is one multi-document file, anything else a folder with one file per
                              resource (<kind>-<namespace>-<name>.yaml). Written only when every input
                              loaded, each atomically: nothing is left half-written; the text then
                              keeps only kyverno apply's "Mutation:" and "Generate:" lines. Each
                              resource is headed by a comment line (# mutated by <policy>,
                              # mutated-target by ..., # generated by <policy>/<rule>); generated
                              resources carry Kyverno's generate.kyverno.io/* labels. Without -o the
                              text prints them as kyverno apply does (below), the other formats after
                              the results
  -i, --stdin                 stdout carries only the mutated and generated resources (to pipe into
                              kubectl apply -f -); the results go to stderr (the text without its
                              "Applying ..." header, as kyverno apply -i)
      --remove-color          -t's header without Kyverno's colours (kyverno apply colours it, piped or not)
  -h, --help                  show this help

Kyverno's other apply flags:
  --continue-on-fail, --continue-on-error, --concurrent N, --batch-size N are accepted: Bylaw always
  applies every policy to every resource, one rule's error being that rule's result.
  --generate-exceptions       instead of the results, print one kyverno.io/v2beta1 PolicyException per
                              failure of a cluster-wide policy (as kyverno apply: named
                              <policy>-<rule>-<namespace>-<name>, matching that resource; an autogen rule's
                              also covers its Pods, names <name>-*; podSecurity lists the failed controls),
                              each after a --- line; YAML, or JSON with --output-format json. -p wins over it
  --generated-exception-ttl D the exceptions' cleanup.kyverno.io/ttl label (a Go duration; default 720h0m0s;
                              0 leaves the label out)
  --username U, --password P  HTTP basic credentials for the Git URLs among the POLICY paths (given to git
                              through its environment: never in the URL, a message or the process list)
  --cluster-wide-resources    with --cluster: list cluster-scoped kinds only, or with -n NAMESPACE
                              cluster-scoped kinds besides the namespace's objects (as kyverno apply)
  --show-performance          with --cluster: Kyverno's "Resource Loading Performance:" summary of loading
                              the cluster's objects (duration, resources loaded, API calls, concurrent
                              lists), on stderr
  --crd-paths PATH            CustomResourceDefinitions (files or folders; repeatable): a resource of a
                              CRD's group, kind and served version is matched with the CRD's plural as
                              its API resource, so matchConstraints.resourceRules (ValidatingPolicy,
                              ValidatingAdmissionPolicy…) can name custom kinds offline (without it
                              such a rule is an error naming the kind). A document that is not a
                              v1 CustomResourceDefinition is an error (exit 2); schemas are not used
  --exceptions-within-resources is not supported by Bylaw yet: it is a usage error naming it and
  what is missing (exit 2), never silently ignored.

Output formats (the same exit codes in each):
  text    kyverno apply's (Kyverno 1.19), for scripts written for it: "Applying N policy rule(s) to
          M resource(s)..." (with K exception(s)), N counting a ClusterPolicy/Policy's rules with their
          autogen copies and 1 per policy of another kind, M resources and JSON payloads; then each
          mutate policy's resource ("policy NAME applied to NAMESPACE/Kind/name:", the resource as
          YAML as go-yaml v3 marshals it (sorted keys, four-space indentation), "Mutation: Mutation
          has been applied successfully."; under each
          MutatingPolicy, the resource after all of them, as Kyverno runs them as one batch) and each
          generated resource ("Generate: ..."), per resource in kyverno apply's stages (ClusterPolicy/
          Policy mutate, their verifyImages, their validate, MutatingAdmissionPolicy, MutatingPolicy,
          ValidatingAdmissionPolicy, ValidatingPolicy, GeneratingPolicy, ClusterPolicy/Policy
          generate, each seeing every patch before it; after every resource, ImageValidatingPolicies
          then DeletingPolicies (on the resources as given, then on each --json payload: "json
          matched" or "json did not match"), ImageValidatingPolicies without digest mutation); then
          per policy and resource "skipped mutate policy",
          "error while applying mutate|generate policy" and, for failed rules, "policy NAME ->
          resource NAMESPACE/Kind/name failed:" ("failed as audit warning:" with --audit-warn on an
          Audit policy; "JSON payload" for a --json, --http-payload or --envoy-payload payload) with "1 - RULE MESSAGE" per rule; then
          "pass: N, fail: N, warn: N, error: N, skip: N " (a trailing space, as Kyverno's). As
          kyverno apply's, it does not show validate errors on stdout: Bylaw names each on stderr
          ("policy NAME -> resource PATH error:", "1 - RULE MESSAGE"), so no reason is hidden. It
          copies kyverno apply's counting: a MutatingPolicy's results count twice in the totals,
          its results on mutate-existing targets not at all, and its resource is printed once
          for each of its bodies (its own, each autogen copy) that matched or whose
          matchConstraints are more than one plain resource rule; each --json payload prints
          "policy NAME applied to //:" and "{}" for every ClusterPolicy/Policy with mutate rules.
          It differs from Kyverno's in: an invalid policy is an error on stderr naming its file and
          document, and exits 2 (Kyverno lists it under "Policies Skipped:" on stdout, counts an
          error and exits 1), and after a mutate rule that errs Bylaw prints and goes on with the
          resource as it was (Kyverno prints "{}" and the policies after it see an empty object, so
          their results vanish: a silent pass Bylaw does not copy)
  summary for people, Bylaw's own: each resource with findings, under its file and line, then each
          failing, erroring or warning rule as policy/rule [action], the Pod Security Standards
          controls that failed (validate.podSecurity rules) and the message, which for the shipped
          policies says how to fix it; then "Applied N policies to M resources: ..." and the totals
          line "pass: N, fail: N, warn: N, error: N, skip: N". Resources keep input order; a
          resource's rules are sorted by outcome, policy and rule; then the mutated and generated
          resources (as -o writes them) after a --- line
  json    for scripts: {"summary": {pass, fail, warn, error, skip}, "results": [{policy, rule,
          resource, result, action, message}], "resources": [{why, policy, rule, resource}]}
          ("resources" only without -o)
  junit   for CI test reports: one <testsuite> per policy, one <testcase> per rule and resource (with
          file and line); fail is a <failure>, error an <error>, skip <skipped/>, and warn passes with
          its message in <system-out>
  sarif   for code scanning (GitHub, GitLab, Azure DevOps): SARIF 2.1.0 with the driver bylaw, one
          rule per policy/rule described from its policies.kyverno.io/title, description, severity
          and category annotations, and one result per fail, warn or error: a failing Enforce rule is
          an error, a failing Audit rule or a warn a warning. Each result points at the manifest
          (relative to the working folder) and the line its YAML document starts on
All YAML Bylaw writes (-o files, resources on stdout, -p reports) reads back as the same objects in
kubectl (YAML 1.1) and YAML 1.2 readers: strings either would read as something else (yes, on, null,
0755, 1e3, 2001-12-14, ...) are quoted, others left plain, as kubectl get -o yaml prints them.

Policy paths:
  A policy path that holds no policy (an empty folder) applies 0 policies and exits 0, with a warning
  on stderr; a path that does not exist is exit 2.
  A policy path must hold only policies (and PolicyExceptions of either group, honoured as if given
  with -e). Each of these is an "error:" line naming the file, the document (from 1, with its line)
  and the field path, and makes the run exit 2; the other documents still run and their results are
  printed:
  - a YAML syntax error;
  - a document that is not a policy in a file that also holds a policy, or in a file named as POLICY.
  In a POLICY folder, files that hold no policy at all (the Kyverno policy library's .kyverno-test/
  suites, resources and values, a kustomization.yaml) are skipped, as kyverno apply skips them, with
  one warning counting them;
  - an invalid policy: an unknown or mistyped field or a missing required one (checked against
    Kyverno 1.19's CRD schema of its kind, kyverno.io and policies.kyverno.io alike, and worded as
    the API server words it, with a "did you mean" hint), a bad value such as
    validationFailureAction: Force, or a deprecated field Kyverno 1.19 refuses, with what to write
    instead (\`bylaw fix policy\` rewrites most of them). Kyverno's CLI skips a policies.kyverno.io
    policy its schema refuses ("Applying 0 policy rule(s)", exit 0); Bylaw refuses it, as the API
    server would at kubectl apply. For example:
    error: policies/require-team.yaml: document 1 (line 1): invalid policy require-team: spec.rules[0].validat: field not declared in schema; did you mean "validate"?
    error: policies/gen.yaml: document 1 (line 1): invalid policy gen: spec.generateExistingOnPolicyUpdate: remove the deprecated field spec.generateExistingOnPolicyUpdate; use generateExisting in each generate rule (spec.rules[*].generate.generateExisting)
  A rule that uses a feature Bylaw does not run yet is, for every resource it matches (after
  match/exclude, PolicyExceptions and preconditions, which Bylaw does evaluate), an error result
  naming the feature; a policy kind Bylaw does not run yet (MutatingPolicy, GeneratingPolicy, ...,
  MutatingAdmissionPolicy at v1, cleanup policies) is an error for every resource, with a warning
  naming it.

Exit codes:
  0  no rule failed and no rule errored
  N  --warn-exit-code N: no rule failed or errored but one warned (Audit failures with --audit-warn,
     scored: "false"); with --warn-no-pass also when no rule passed. Kyverno's words say why
     ("exit as warnExitCode is N", "exit as no objects satisfied policy"), on stdout after the text,
     -t and -p as kyverno apply prints them, on stderr after the other formats and with -i
  1  a rule failed (fail; Audit rules too, unless --audit-warn), or a rule could not be evaluated (error;
     this includes rules using a feature Bylaw does not run yet)
  2  bad usage, an unknown policy set (the message lists the sets), unreadable input (a message names
     the file and document), an invalid policy path (above), a Git clone that failed, or a cluster that
     cannot be read (unreachable, forbidden: the message names them). Exit 2 means the run did not
     check what you asked; to upload a SARIF or JUnit report even when rules fail, accept exit 1
     (|| test $? -eq 1)
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
  bylaw apply policies/ --cluster -n shop -r web-0
  bylaw apply policies/ --cluster -n shop --registry
  bylaw apply --policy-set pss-restricted --cluster --context prod --output-format json
  bylaw apply https://github.com/kyverno/policies/pod-security/ --git-branch main -r manifests/
  bylaw apply file:///srv/git/policies.git/release-1 -r manifests/

Environment:
  BYLAW_POLICY_SETS_DIR       read policy sets from this folder instead of the policies/ Bylaw ships
                              (one <set>/set.yaml per set: apiVersion bylaw.dev/v1alpha1, kind PolicySet)`;
