export const SERVE_HELP = `Usage: bylaw serve (--policies DIR | --cluster | --kubeconfig FILE) (--tls-cert-file F --tls-key-file F | --self-signed --dns-name NAME | --leader-elect --tls-secret NS/NAME) [flags]

Run the admission webhook: the API server sends AdmissionReviews; Bylaw mutates (answers with a JSON
patch), validates (denies Enforce failures with Kyverno's message; admits Audit failures and records
them, with an admission warning only when the policy sets spec.emitWarning: true, as in Kyverno, or
when an Audit rule errors) and
checks policies as they are created. Prometheus metrics, with Kyverno's names, are served on a
separate port, so Kyverno's Grafana dashboard works unchanged. With --cluster it can also run, on
the leader and opt-in until each has its own Deployment, cleanup policies and the
cleanup.kyverno.io/ttl label (--cleanup-controller), background scans into PolicyReports
(--reports-controller) and generate and mutate-existing rules (--generate-controller-as); what
runs in a cluster and what does not is in docs/cluster.md, limits and failure modes in
docs/reliability.md.

Endpoints (HTTPS):
  POST /mutate/fail, /mutate/ignore                 mutate rules, in policy order, of the Fail / Ignore policies
  POST /validate/fail, /validate/ignore             validate rules of the Fail / Ignore policies
  POST /…/fail/timeout-Ns, /…/ignore/timeout-Ns     the same for policies with a timeout of N s (--timeout-group N)
  POST /…/fail/finegrained/[NS/]NAME, /…/ignore/…   one policy with webhookConfiguration.matchConditions (with --register)
  POST /vpol/fail/finegrained/NAME, /nvpol/…/NS/NAME one ValidatingPolicy (mpol, ivpol, … likewise) with matchConditions,
                                                    matchPolicy Exact or webhookConfiguration.timeoutSeconds (with --register)
  POST /mutate, /validate                           every policy (for a local trial; not registered in a cluster)
  POST /policyvalidate                              ClusterPolicy/Policy admission checks and warnings
  POST /policymutate                                accepted unchanged (as Kyverno)
  GET  /health/liveness, /health/readiness
  GET  /metrics                                     on --metrics-port (plain HTTP; with --metrics-auth token, HTTPS
                                                    and a bearer token allowed to get /metrics)
  GET  /, /api/reports                              the report UI, on --ui-port (HTTPS)

Flags:
      --policies DIR          ClusterPolicy/Policy, ValidatingPolicy and PolicyException (kyverno.io/v2, and
                              policies.kyverno.io for ValidatingPolicy) YAML, read recursively
                              and watched; a reload is atomic, and an invalid edit keeps the last good set
                              (reported on readiness, in the bylaw_policy_set_healthy metric and in the log).
                              Files are read once nothing in DIR changed for 1 s, so a half-written file is
                              never loaded. Until a set loads, the server is not ready and reviews are
                              answered per the webhook's failurePolicy (Fail denies).
                              Without --policies, --cluster (or --kubeconfig) reads the policies from the
                              cluster instead: ClusterPolicy and Policy (kyverno.io/v1) and PolicyException
                              (kyverno.io/v2) watches. Each policy loads on its own: one that is invalid is not
                              served (the others are) and its status says why (Ready False); Bylaw writes each
                              policy's status as Kyverno does (Ready condition, autogen rules, rule counts), so
                              \`kubectl get cpol,pol\` shows READY. Needs list/watch on those kinds and patch on
                              clusterpolicies/status and policies/status. The policies.kyverno.io kinds are
                              watched too; their status is Kyverno 1.19's (conditionStatus, and
                              status.autogen.configs: the pod-controller copies of a policy on Pods)
      --allow-empty-policies  load a folder with no policies (by default no policies is refused like an
                              invalid set: a deleted or broken ConfigMap mount must not turn enforcement off)
      --enable-policy-exception
                              honour PolicyExceptions from the cluster (Kyverno's --enablePolicyException);
                              off by default: each one is then logged as ignored, never applied. Needs
                              --exception-namespace
      --exception-namespace NS
                              honour only PolicyExceptions in namespace NS (repeatable, or comma-separated;
                              '*' for every namespace; Kyverno's --exceptionNamespace). From the cluster,
                              exceptions elsewhere are logged as ignored. With --policies, exceptions in the
                              folder apply in any namespace unless this is given. The policy webhook
                              (/policyvalidate) checks a PolicyException of either group at kubectl apply,
                              refusing an invalid one with the field, and answers one these flags will not
                              honour with Kyverno's warning ("...would not be processed until it is enabled."
                              or "...namespace must match the defined namespace.")
      --cluster-facts FILE    bylaw.dev/v1alpha1 ClusterFacts: namespace labels (for namespaceSelector) and
                              users' and groups' roles/clusterRoles; watched like the policies. Until it
                              loads, the server is not ready and reviews are answered per failurePolicy; a
                              namespace it does not list makes rules that select by namespace labels errors.
                              With --cluster, namespace labels (and roles, once a policy reads them) come
                              from the cluster
      --cluster               read live context from the Kubernetes API (--kubeconfig FILE, else KUBECONFIG,
                              else in-cluster): namespace labels for namespaceSelector from a Namespace
                              watch, roles from RoleBinding/ClusterRoleBinding watches, configMap and
                              apiCall (urlPath, GET) context entries from watches of the resources they read. A namespaced Policy reads only its own namespace.
                              Needs list and watch on those resources. A review too heavy for its batch
                              finishes on an evaluation worker, as without --cluster (--eval-workers)
      --kubeconfig FILE       the kubeconfig for --cluster (implies --cluster)
      --max-policies-per-namespace N
                              policies from the cluster served per namespace, Policy and the namespaced
                              policies.kyverno.io kinds together (default 100); ClusterPolicies and the
                              cluster-scoped kinds have no such budget and load first
      --max-policy-bytes-per-namespace SIZE
                              bytes of policy spec served per namespace (default 1Mi). Within a namespace the
                              policies created first are served; one past either budget is not compiled,
                              and its status is Ready False with the reason
      --cluster-cache-mib N   memory budget of each watched resource's cache (default 128); a cache over it
                              is dropped, and rules that read it are errors
      --register              write Bylaw's own webhook configurations (server-side apply, field manager
                              bylaw; --kubeconfig FILE, else KUBECONFIG, else in-cluster): fail and ignore webhooks per timeout
                              group with rules narrowed to the kinds and operations the loaded policies
                              match (custom resources as discovery serves them, re-read every 30 s), a
                              webhook of its own for each policy with webhookConfiguration.matchConditions,
                              and the policy-validating webhook; rewritten when the set, the CA or
                              discovery changes, never deleted; names the API server would refuse are
                              shortened with a hash, and a policy whose own webhook it would still refuse
                              (bad selectors, over 64 matchConditions) is refused at load (see
                              deploy/README.md, "Self-registration")
      --server-url URL        register https://HOST:PORT instead of the Service (Bylaw outside the cluster;
                              Kyverno's --serverIP)
      --service-name NAME     the Service the webhooks name (default bylaw)
      --service-namespace NS  its namespace, and Bylaw's own, whose objects the webhooks skip (default
                              $POD_NAMESPACE, else bylaw)
      --service-port N        the Service port (default 443)
      --kyverno-webhook-names with --register: give the configurations and webhooks Kyverno v1.19's names
                              (kyverno-resource-validating-webhook-cfg, validate.kyverno.svc-fail, …,
                              validate-policy.kyverno.svc) instead of Bylaw's; refuses to start if one of
                              those configurations exists and is not Bylaw's (see docs/cluster.md)
      --tls-ca-file FILE      the CA registered as caBundle (default: the certificate file itself)
      --egress-allow CIDR     with --cluster: let apiCall.service calls, GlobalContextEntry service calls and
                              CEL http.Get/Post reach this range (repeatable), which the egress filter
                              refuses by default (loopback, link-local and cloud metadata addresses).
                              apiCall POST (a ClusterPolicy's), service and CEL http calls (cluster-wide
                              policies' only) are made once per review, without a token (docs/adr/0012);
                              GlobalContextEntries (kyverno.io) are read for globalReference. Image
                              registries (imageRegistry entries, CEL image.GetMetadata) go through the
                              same filter (docs/adr/0015)
      --generate-controller-as SA
                              with --cluster: run generate and mutate-existing rules (UpdateRequests in Bylaw's namespace, on the
                              leader), reading and writing as the ServiceAccount SA of Bylaw's namespace
                              (e.g. bylaw-background-controller): Bylaw's own needs impersonate on it, which
                              deploy/ does not grant (docs/cluster.md). Without it neither is run
      --image-pull-secret NAME
                              with --cluster: a docker config pull secret in Bylaw's namespace whose
                              credentials every registry call may use (repeatable; Kyverno's
                              --imagePullSecrets). Bylaw's ServiceAccount needs get on it
      --tls-cert-file FILE    serving certificate (PEM); reloaded when it changes
      --tls-key-file FILE     its private key (PEM)
      --self-signed           create a CA and a serving certificate instead, and print the caBundle
      --dns-name NAME         a name for the self-signed certificate (repeatable), e.g. bylaw.bylaw.svc
      --component NAME        what this process runs (repeatable; default admission): admission (the
                              webhooks, policy status, registration, the certificate), background (generate
                              rules, as its own ServiceAccount), reports (background scans into
                              PolicyReports), cleanup (cleanup policies, the cleanup.kyverno.io/ttl label) or
                              monitoring (every producer's PolicyReports, openreports Reports and trivy-operator
                              reports as Policy Reporter's and trivy's series on /metrics; no Lease).
                              Each but admission needs --cluster; with --leader-elect each elects on its own
                              Lease (bylaw-background-controller, bylaw-reports-controller,
                              bylaw-cleanup-controller). Without admission, only health and metrics are served
      --monitoring-labels L   the labels of policy_report_result: detailed (default: namespace, rule, policy,
                              report, kind, name, status, severity, category, source), simple (namespace,
                              policy, status, severity, category, source) or a comma-separated list of them
      --monitoring-max-series N
                              label sets each monitoring family may hold (default 10000); past it series are
                              left out and counted in bylaw_monitoring_series_dropped{metric}
      --loki URL              with --component monitoring: send each new report result (and trivy-operator's,
                              as PolicyReport results) to Loki as Policy Reporter's Loki target writes it,
                              once (not again on each resync; results already there at start are not sent).
                              --loki-tenant, --loki-encoding, --loki-label, --loki-username,
                              --loki-bearer-token-file, --loki-ca-file, --loki-cert-file, --loki-key-file and
                              --loki-insecure-skip-tls-verify are as for \`bylaw kube-bench\`
      --loki-minimum-severity SEVERITY
                              send only results of this severity or above (info, low, medium, high, critical;
                              a result with no severity is below all), as Policy Reporter's minimumSeverity
      --loki-sources S1,S2    send only results of these sources (repeatable; * and ? wildcards), as Policy
                              Reporter's sources
      --loki-filter FIELD.include=V1,V2 | FIELD.exclude=V1,V2
                              Policy Reporter's filter (repeatable; all must pass): FIELD is namespaces,
                              policies or sources (wildcards), severities or status (exact values) or
                              reportLabels (NAME:VALUE on the report's labels)
      --loki-events           also send each new Kubernetes Event as kubernetes-event-exporter's Loki sink
                              does (labels job=kubernetes-event and --loki-label; the line is the Event's JSON)
      --loki-event-match FIELD=REGEX
                              send only Events whose FIELD matches (repeatable: all must match); FIELD is
                              namespace, reason, type, kind, apiVersion, message, component or host
      --loki-event-drop FIELD=REGEX
                              do not send Events whose FIELD matches (repeatable: any drops)
      --cleanup-controller    with --cluster: run cleanup policies (CleanupPolicy, ClusterCleanupPolicy,
                              DeletingPolicy, NamespacedDeletingPolicy) and the cleanup.kyverno.io/ttl
                              label on the leader, deleting what the grants aggregated to
                              bylaw:cleanup-controller allow. Without it cleanup policies are refused at
                              kubectl apply (docs/cluster.md, "Cleanup")
      --reports-controller    with --cluster: scan the resources background policies match and write one
                              PolicyReport per resource, on the leader (docs/cluster.md, "Policy reports").
                              Without it no background reports are written
      --background-scan-interval D
                              with --reports-controller: scan every resource a background policy
                              matches again this often (default 1h; Kyverno's --backgroundScanInterval).
                              Resources are also scanned when they or the policies change; each has one
                              PolicyReport, written only when its results change (docs/cluster.md).
                              The background controller (generate, mutate-existing) also makes each
                              policy's existing-trigger and target work again this often, as Kyverno's
                              policy controller does
      --background-scan-workers N
                              with --reports-controller: reports written at once while a pass scans on
                              (default 8; Kyverno's --backgroundScanWorkers). A pass of 10,000 resources
                              takes about 10,000 × the API server's write latency / N
      --client-rate-limit-qps Q, --client-rate-limit-burst B
                              with --cluster or --kubeconfig: requests a second, and at once after a quiet
                              spell, of the client that reads for admission (context, apiCall) and that
                              the generate and mutate-existing controller writes with (default 100 and
                              200; Kyverno's --clientRateLimitQPS and --clientRateLimitBurst; 0 is
                              client-go's default, 5 and 10). Beyond it requests wait their turn
      --reports-rate-limit-qps Q, --reports-rate-limit-burst B
                              the reports controller's own client (default 300 and 300: what Kyverno's
                              reports controller sets as its --clientRateLimitQPS and Burst), so a scan's
                              writes neither wait behind admission's reads nor hold them up
      --events-rate-limit-qps Q, --events-rate-limit-burst B
                              the Events client (default 1000 and 2000; Kyverno's --eventsRateLimitQPS
                              and --eventsRateLimitBurst)
      --reports-service-account-name SA
                              who the reports component runs as, for the SubjectAccessReviews about it
                              (RBACPermissionsGranted): system:serviceaccount:NS:NAME (Kyverno's
                              --reportsServiceAccountName) or a name in Bylaw's namespace (default
                              bylaw-reports-controller)
      --background-service-account-name SA
                              who the background component runs as, for the policy webhook's generate and
                              mutate-existing permission checks and the grants behind such a policy's
                              Ready: as above (Kyverno's --backgroundServiceAccountName; default
                              bylaw-background-controller)
      --event-component-prefix P
                              with --cluster or --kubeconfig: Events are reported by P-admission,
                              P-scan, P-generate, P-mutate and P-cleanup (default kyverno, Kyverno's
                              names, so event routes and queries written for Kyverno keep working)
      --max-queued-events N   Events waiting to be written at most (default 1000; Kyverno's
                              --maxQueuedEvents); more are dropped and counted in
                              kyverno_events_dropped_total. The admission answer never waits for them
      --omit-events LIST      Event reasons not written, from PolicyViolation, PolicyApplied,
                              PolicyError and PolicySkipped (default PolicyApplied,PolicySkipped, as
                              Kyverno's Helm chart sets --omitEvents; "" writes them all)
      --openreports-enabled   with --reports-controller: write openreports.io/v1alpha1 Reports and
                              ClusterReports instead of wgpolicyk8s.io PolicyReports (Kyverno's
                              --openreportsEnabled); their CRDs are in deploy/components/openreports
      --leader-elect          elect one leader among the replicas on a coordination.k8s.io Lease (client-go's
                              rules); only the leader writes shared objects. bylaw_leader is 1 on the leader.
                              Needs the API (--kubeconfig, KUBECONFIG or in-cluster) and get/create/update on
                              the Lease. On SIGTERM the leader releases the Lease
      --leader-elect-lease NAME
                              the admission controller's Lease (default bylaw-admission)
      --leader-elect-namespace NS
                              its namespace (default: POD_NAMESPACE, else the ServiceAccount's)
      --leader-elect-lease-duration D, --leader-elect-renew-deadline D, --leader-elect-retry-period D
                              client-go's timings (defaults 15s, 10s, 2s)
      --tls-secret [NS/]NAME  serve the certificate in this Secret (namespace default as for the Lease),
                              watched and reloaded without restart; needs --leader-elect. The leader creates
                              a CA (1 year) and a serving certificate (150 days) in it (tls.crt, tls.key,
                              ca.crt: the bundle to trust, ca.key) and renews them before they expire. Until
                              the Secret holds a valid pair the server is not ready. Annotate the Secret with
                              bylaw.dev/rotate-ca to rotate the CA now
      --service-name NAME     put NAME.NS.svc and NAME.NS.svc.cluster.local in the certificate (with --dns-name:
                              further names; an IP address becomes an IP SAN)
      --tls-renew-before D    renew a certificate this long before it expires (default 15d)
      --tls-ca-overlap D      after a new CA joins ca.crt, keep serving the old CA's certificate this long
                              (default 1m), so clients trust the new CA before it is presented
      --host ADDR             listen address (default 0.0.0.0)
      --port N                HTTPS port (default 9443)
      --metrics-port N        metrics port (default 8000; 0 picks a free port; off disables)
      --metrics-auth MODE     none (default: plain HTTP, anyone who reaches the port) or token: HTTPS with the
                              serving certificate, and only a bearer token the API server accepts
                              (TokenReview) for a user allowed to get the nonResourceURL /metrics
                              (SubjectAccessReview), as kube-rbac-proxy; 401/403 otherwise. /metrics names
                              namespaces and policies. Needs the API server and create on tokenreviews and
                              subjectaccessreviews
      --ui-port N             serve the report UI on this port (off by default; 0 picks a free port): HTTPS
                              with the serving certificate; the PolicyReports, ClusterPolicyReports and
                              openreports.io Reports it shows are read with the viewer's own bearer token,
                              never Bylaw's rights. Needs the API server (docs/adr/0022-report-ui.md)
      --timeout-seconds N     the default webhook timeout, 1-30 (default 10): the timeout of /validate/fail,
                              /validate/ignore, /mutate/fail and /mutate/ignore, and of policies that set
                              none. A review gets 80% of its webhook's timeout, then answers per the
                              policies' failurePolicy (Fail denies, Ignore allows)
      --timeout-group N       a further registered webhook timeout, 1-30 (repeatable): policies whose
                              webhookConfiguration.timeoutSeconds (or webhookTimeoutSeconds) is N are served
                              on /validate/fail/timeout-Ns and the like. A policy whose timeout has no group
                              makes the policy set invalid (it would never be evaluated). Not needed with
                              --register: then every timeout is served, and its webhooks are registered
                              as soon as a policy asks for it, as Kyverno does
      --eval-workers N        worker threads where a review too heavy for its batch finishes, off the main
                              thread, so liveness and other reviews stay answered (default 1, with --cluster
                              too: live data reaches them from the main thread's caches). One namespace holds
                              at most N-1 of them (at least 1), and a spare thread serves a namespace holding
                              none while the others are busy (0: finish it on the main thread after its
                              batch is answered). Each has a heap of a quarter of --memory-limit (at least
                              32 MiB): a review that outgrows it ends that thread, its policies are errors
      --max-body-bytes N      largest request body accepted (default 7340032: object + oldObject of 3 MiB each)
      --max-json-depth N      arrays and objects a request body may nest (default 1000)
      --max-json-entries N    items of one array or members of one object a body may hold (default 150000)
      --max-json-values N     values a body may hold in all (default 1000000); the three are counted on the
                              text before it is parsed, and a body past one is answered 413 with the reason
      --grace-seconds N       on SIGTERM, time in-flight reviews get to finish (default 15)
      --max-connections N     connections held at once (default 1000); at the cap a new one replaces the one
                              idle longest, or is closed when every held one is busy
      --max-inflight-bytes N  request bytes held at once, from the first byte read to the answer (default a
                              tenth of the memory limit, at least one body); past it a review is answered 503
                              at once, and the API server applies the webhook's failurePolicy
      --memory-limit SIZE     the memory limit to stay under, e.g. 256Mi (default: the container's, from
                              cgroup memory.max or memory.limit_in_bytes); reviews are answered 503 while the
                              heap or resident memory is above 85% of its bound (resident memory only while
                              over half the limit is in use: pages the allocator kept after a spike do not
                              shed)
      --metrics-max-bytes SIZE
                              size budget of the series reviews create in /metrics (default 4Mi); new label
                              sets past it are dropped and counted in bylaw_metrics_series_dropped_total
      --metrics-max-namespaces N
                              distinct resource_namespace values in metrics (default 200); later ones are
                              labelled _overflow
      --tls-min-version V     1.2 (default) or 1.3
      --tls-cipher-suites S   comma-separated TLS 1.2/1.3 suites, OpenSSL or IANA names (default: forward-secret
                              AEAD only: ECDHE with AES-GCM or ChaCha20-Poly1305, and TLS 1.3's suites)
      --client-ca FILE        require client certificates signed by this CA (PEM): the API server's
                              (see deploy/README.md, "Authenticate the API server")
      --log-level LEVEL       debug, info (default), warn, error or silent
  -h, --help                  show this help

Readiness (/health/readiness) is 503 until a policy set, (with --cluster-facts) the cluster facts,
(with --cluster) every watched resource's cache and (with --tls-secret) a certificate have loaded; a later rejected reload keeps the last good ones and stays ready, with the reason.

Exit codes: 0 after a clean shutdown (SIGTERM/SIGINT); 2 bad flags or unreadable TLS files;
3 internal error (a bug in Bylaw: please report it).
Durations (D): 500ms, 15s, 1m, 12h, 15d, or combined (1h30m).

Examples:
  bylaw serve --policies ./policies --self-signed --dns-name bylaw.bylaw.svc
  bylaw serve --cluster --enable-policy-exception --exception-namespace policy-exceptions \\
    --tls-cert-file /tls/tls.crt --tls-key-file /tls/tls.key
  bylaw serve --policies /policies --cluster-facts /config/cluster-facts.yaml \\
    --tls-cert-file /tls/tls.crt --tls-key-file /tls/tls.key`;
