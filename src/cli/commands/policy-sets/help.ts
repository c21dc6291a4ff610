export const POLICY_SETS_HELP = `Usage: bylaw policy-sets [NAME] [flags]

List the policy sets Bylaw ships, or the policies of one set with what each checks.
Use a set with \`bylaw apply --policy-set NAME -r RESOURCE...\`.

Without NAME: each set's name, number of policies and description.
With NAME: each policy's name, severity, failure action and title, and below it what it checks
(from its policies.kyverno.io/title, severity and description annotations).

The sets run in Audit mode: a failure is reported (and \`bylaw apply\` exits 1) but, in a cluster,
nothing is blocked, and the webhook adds no admission warning for it (as in Kyverno, an Audit
failure warns only when the policy sets spec.emitWarning: true, which the shipped policies do not).
\`bylaw apply --enforce\` runs them as Enforce; in a cluster, use the set's kustomize component
deploy/components/policy-set-<set> (Audit), .../enforce (the whole set in Enforce), or add
.../enforce/<policy> after it to switch one policy at a time (a kustomize patch of
validate.failureAction works too). See docs/policy-sets.md.

Flags:
      --output-format FORMAT  text (default) or json
  -h, --help                  show this help

Exit codes:
  0  listed
  2  bad usage or an unknown set name (the message lists the sets there are)
  3  internal error (a bug in Bylaw: please report it)

Examples:
  bylaw policy-sets
  bylaw policy-sets pss-restricted
  bylaw apply --policy-set pss-restricted -r manifests/

Environment:
  BYLAW_POLICY_SETS_DIR       read policy sets from this folder instead of the policies/ Bylaw ships
                              (one <set>/set.yaml per set: apiVersion bylaw.dev/v1alpha1, kind PolicySet,
                              metadata.name, description, policies: [files or folders, relative to the set])`;
