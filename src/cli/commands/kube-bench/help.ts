export const KUBE_BENCH_HELP = `Usage: bylaw kube-bench FILE... --node NAME [--pushgateway URL] [--loki URL] [flags]
       bylaw kube-bench [--schedule CRON] --node NAME [--pushgateway URL] [--loki URL] [flags] -- COMMAND ARG...

Send the results of \`kube-bench run --json\` (an object {Controls, Totals}, or the array
--nototals writes) for one node to a Prometheus Pushgateway and to Loki, for the security
dashboard (docs/monitoring.md). FILE - reads standard input; several files (one per kube-bench
run on the node, e.g. master and node targets) are sent together.

Pushgateway (--pushgateway): one PUT to /metrics/job/JOB/instance/NODE, which replaces everything
that node pushed before and leaves the other nodes alone. It holds
  kube_bench_info{kube_bench_type, kube_bench_target, kube_bench_syntax, kube_bench_node_name} 1
per target checked (type and target: the controls' node_type, e.g. master, node, etcd; syntax:
the benchmark version, e.g. cis-1.10), and kube_bench_checks{..., status} with kube-bench's counts
per status. Scrape the Pushgateway with honor_labels: true.

Loki (--loki): one line per check, "[FAIL] 4.1.9 <description>", labelled job, kube_bench_node_name,
kube_bench_type, kube_bench_target, kube_bench_syntax, kube_bench_gb_cis_id (the check's number),
kube_bench_gb_tg_test_major_section, kube_bench_gb_tg_test_minor_status, _minor_scored and
_minor_type; the audit command, remediation, expected and actual values and descriptions go in
structured metadata (Loki 3, or 2.9 with allow_structured_metadata). A push Loki does not answer, or
answers 429 or 5xx, is retried with backoff until --timeout.

Without --pushgateway and --loki, prints the Pushgateway text and the Loki lines instead (a dry run).

With a command after -- (e.g. -- kube-bench run --targets node --json), runs it (directly, no
shell) and reads kube-bench's JSON from its stdout instead of FILE. With --schedule, runs it once
at start and then at each tick, one run at a time, and sends each result; a run that outlasts the
next tick lets that tick pass. A run that fails is reported on stderr and the loop goes on (the
missing push shows as a stale kube-bench push in the alerts). SIGTERM stops it (exit 0).
deploy/components/kube-bench runs it as a DaemonSet: once per node per tick (docs/adr/0020).

Flags:
      --node NAME              the node kube-bench ran on (default: $NODE_NAME, e.g. from the
                               Downward API's spec.nodeName); kube-bench's JSON does not name it
      --pushgateway URL        the Pushgateway, e.g. http://pushgateway.monitoring:9091
      --job NAME               the Pushgateway job and the Loki job label (default kube-bench)
      --loki URL               Loki's push endpoint, e.g. http://loki-gateway/loki/api/v1/push (a URL
                               without a path gets /loki/api/v1/push)
      --loki-tenant ID         sent as X-Scope-OrgID (Loki with auth_enabled)
      --loki-encoding ENC      protobuf (snappy; the default) or json
      --loki-label NAME=VALUE  a label added to every Loki stream, e.g. cluster=prod (repeatable)
      --loki-username USER     basic authentication; the password is read from $LOKI_PASSWORD
      --loki-bearer-token-file FILE
                               bearer authentication with the token in FILE
      --loki-ca-file FILE      PEM roots to trust for an https Loki instead of the system's
      --loki-cert-file FILE    a client certificate (PEM) for an https Loki that asks for one
      --loki-key-file FILE     its key (PEM)
      --loki-insecure-skip-tls-verify
                               do not verify Loki's certificate (testing only)
      --timeout DURATION       how long the pushes may take in all, e.g. 30s (default 60s)
      --run-timeout DURATION   stop the command after -- if it runs longer (default 10m)
      --schedule CRON          with a command after --: keep running it, at start and at each
                               tick of CRON (five fields, @hourly-style, @every 6h; a TZ=Zone
                               prefix; UTC otherwise)
  -h, --help                   show this help

Exit codes:
  0  sent (or printed)
  1  a push failed: the Pushgateway refused it, or Loki lines were refused or still unsent at
     --timeout (the message says which and why); or the command after -- failed or wrote no kube-bench JSON
     (with --schedule: 0 once stopped by SIGTERM; failed runs are reported and the loop goes on)
  2  bad usage, or a file that is not kube-bench JSON (the message names the file and the field)
  3  internal error (a bug in Bylaw: please report it)

Examples:
  kube-bench run --targets node --json | \\
    bylaw kube-bench - --node "$NODE_NAME" --pushgateway http://pushgateway:9091 \\
      --loki http://loki-gateway --loki-tenant security
  bylaw kube-bench master.json node.json --node cp-1 --pushgateway http://127.0.0.1:9091
  bylaw kube-bench result.json --node cp-1      # print what would be sent
  bylaw kube-bench --schedule "0 */6 * * *" --node "$NODE_NAME" \\
      --pushgateway http://pushgateway:9091 -- kube-bench run --json`;
