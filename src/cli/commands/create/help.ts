/** Help texts of `bylaw create` and its templates. */
const OUT = `  -o, --output PATH   write the document to PATH (default: standard output)
  -h, --help          show this help`;
const EXIT = `Exit codes: 0 written; 2 bad usage (one line says what); 3 internal error (a bug in Bylaw).`;

export const CREATE_SUBCOMMAND_HELP: Record<string, string> = {
  test: `Usage: bylaw create test [flags]

Write a kyverno-test.yaml (cli.kyverno.io/v1alpha1 Test), as \`kyverno create test\` does.

Flags:
  -n, --name NAME               test name (default test-name)
  -p, --policy PATH             a policy file (repeatable)
  -r, --resource PATH           a resource file (repeatable)
  -f, --values PATH             a values file (written as the test's variables)
      --pass P,R,RES[,NS[,KIND]]  an expected pass: policy, rule, resource, namespace, kind (repeatable)
      --fail P,R,RES[,NS[,KIND]]  an expected fail (repeatable)
      --skip P,R,RES[,NS[,KIND]]  an expected skip (repeatable)
${OUT}

${EXIT}

Example:
  bylaw create test -p policy.yaml -r resource.yaml -f values.yaml --pass require-team,check-team,web,default,Pod -o kyverno-test.yaml`,
  values: `Usage: bylaw create values [flags]

Write a values file (cli.kyverno.io/v1alpha1 Values), as \`kyverno create values\` does.

Flags:
  -g, --global KEY=VALUE                  a global value (repeatable)
  -n, --ns-selector NS,KEY=VALUE,...       namespace labels for namespaceSelector (repeatable)
      --rule POLICY,RULE,KEY=VALUE,...     rule values (repeatable)
      --resource POLICY,RES,KEY=VALUE,...  resource values (repeatable)
${OUT}

${EXIT}

Example:
  bylaw create values -g request.mode=dev -n prod,env=prod --rule policy,rule,env=demo --resource policy,resource,env=demo`,
  "user-info": `Usage: bylaw create user-info [flags]

Write a user-info file (cli.kyverno.io/v1alpha1 UserInfo), as \`kyverno create user-info\` does.

Flags:
  -u, --username NAME        the user name
  -g, --group GROUP          a group (repeatable)
  -r, --role NS:ROLE         a role (repeatable)
  -c, --cluster-role ROLE    a cluster role (repeatable)
${OUT}

${EXIT}

Example:
  bylaw create user-info -u molybdenum@somecorp.com -g basic-user -c admin`,
  exception: `Usage: bylaw create exception NAME [flags]

Write a PolicyException (kyverno.io/v2), as \`kyverno create exception\` does.

Flags:
      --namespace NS                      the exception's namespace
      --policy-rules POLICY,RULE,...      a policy and the rules it excepts (repeatable; required)
      --any kind=K,name=N,namespace=NS    a resource filter under match.any (repeatable; kind/name/namespace repeat)
      --all kind=K,name=N,namespace=NS    a resource filter under match.all (repeatable)
      --background=false                  not considered in background scans (default true; also --no-background)
${OUT}

${EXIT}

Example:
  bylaw create exception my-exception --namespace my-ns --policy-rules "policy,rule-1,rule-2" --any "kind=Pod,kind=Deployment,name=test-*"`,
  "cleanup-policy": `Usage: bylaw create cleanup-policy NAME [flags]

Write a ClusterCleanupPolicy (kyverno.io/v2), or a CleanupPolicy with --namespace.

Flags:
      --namespace NS                      make it a namespaced CleanupPolicy in NS
  -s, --schedule CRON                     when it runs (default "*/5 * * * *")
      --any kind=K,name=N,namespace=NS    a resource filter under match.any (repeatable)
      --all kind=K,name=N,namespace=NS    a resource filter under match.all (repeatable)
${OUT}

${EXIT}

Example:
  bylaw create cleanup-policy old-jobs --schedule "0 * * * *" --any "kind=Job,namespace=ci"`,
  "metrics-config": `Usage: bylaw create metrics-config [flags]

Write Kyverno's metrics ConfigMap, as \`kyverno create metrics-config\` does.

Flags:
  -n, --name NAME          ConfigMap name (default kyverno-metrics)
      --namespace NS       ConfigMap namespace (default kyverno)
  -i, --include NS         an included namespace (repeatable)
  -e, --exclude NS         an excluded namespace (repeatable)
${OUT}

${EXIT}

Example:
  bylaw create metrics-config -i ns-included-1 -i ns-included-2 -e ns-excluded`,
};

export const CREATE_HELP = `Usage: bylaw create TEMPLATE [flags]

Write a starting document, as \`kyverno create\` does:

  test             a kyverno-test.yaml (cli.kyverno.io/v1alpha1 Test)
  values           a values file (cli.kyverno.io/v1alpha1 Values)
  user-info        a user-info file (cli.kyverno.io/v1alpha1 UserInfo)
  exception        a PolicyException (kyverno.io/v2)
  cleanup-policy   a ClusterCleanupPolicy or CleanupPolicy (kyverno.io/v2)
  metrics-config   Kyverno's metrics ConfigMap

Run \`bylaw create TEMPLATE --help\` for its flags. Every template takes -o/--output PATH (default:
standard output). In short:
  test             -p POLICY, -r RESOURCE, -f VALUES, --pass/--fail/--skip policy,rule,resource[,namespace[,kind]]
  values           -g key=value, -n ns,key=value, --rule policy,rule,key=value, --resource policy,resource,key=value
  user-info        -u USER, -g GROUP, -r ROLE, -c CLUSTERROLE
  exception NAME   --policy-rules policy,rule,..., --any/--all "kind=Pod,name=test-*", --namespace, --background=false
  cleanup-policy NAME
                   --any/--all, -s CRON, --namespace (a namespaced CleanupPolicy)
  metrics-config   -i/-e namespaces to include or exclude

Exit codes: 0 written; 2 bad usage (no or an unknown template, a malformed flag); 3 internal error (a bug in Bylaw).

Examples:
  bylaw create test -p policy.yaml -r resource.yaml --pass require-team,check-team,web -o kyverno-test.yaml
  bylaw create user-info -u molybdenum@somecorp.com -g basic-user -c admin
  bylaw create exception ci-tools --namespace ci --policy-rules "disallow-host-namespaces,host-namespaces" --any "kind=Pod,name=tool-*"`;
