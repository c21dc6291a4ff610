/**
 * `bylaw apply --cluster`: the cluster side of a run, as Kyverno's CLI does it
 * (cmd/cli/kubectl-kyverno/commands/apply, utils/common fetch.go, processor/policy_processor.go):
 * - the connection: `--kubeconfig`, else KUBECONFIG, else ~/.kube/config, else in-cluster;
 *   `--context` picks a context (src/kube/kubeconfig.ts);
 * - the objects to check: the kinds the policies match (cluster-kinds.ts), found through discovery,
 *   listed in all namespaces or, with `-n`, in one (cluster-scoped kinds are then not listed, as in
 *   Kyverno). An `-r` value that is not a file or folder names objects in the cluster (Kyverno's
 *   meaning of `-r NAME --cluster`); one that is a file or folder adds its manifests;
 * - namespace labels for namespaceSelector: read from the live Namespace unless a values file gives them;
 * - context entries (configMap, apiCall GET, CEL resource.Get/List) read the cluster, read-only
 *   (src/kube/cluster-reads.ts); the engine evaluates a resource again once its reads are made;
 * - with `--registry`, imageRegistry entries and CEL image.GetMetadata read image registries
 *   (the same RegistryAccess and local docker config as without --cluster, docs/adr/0015); cluster
 *   reads and image fetches are made in the same rounds, so either may depend on the other.
 * Every problem names the cluster (kubeconfig and context) and what was refused; it fails the run (exit 2).
 * Loaded only with --cluster (a dynamic import), so `bylaw apply` on files never loads src/kube.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import {
  type CompiledPolicy,
  type ContextSources,
  createEngine,
  type Engine,
  err,
  ok,
  readsTypedKinds,
  type Resource,
  resourceKind,
  resourceName,
  resourceNamespace,
  type Result,
  type JsonObject,
  mergeTypedSchemaData,
  typedKindsOf,
  typedSchemaFromOpenApi,
  type TypedSchemaData,
  typedSchemaWithCrds,
} from "../../../engine/index.js";
import { resolveConnection } from "../../../kube/kubeconfig.js";
import { KubeClient, KubeError } from "../../../kube/kube-client.js";
import { createClusterTypedKinds } from "../../../kube/openapi-typed-kinds.js";
import { discover, selectServed, type ServedResource } from "../../../kube/discovery.js";
import { listObjects, listScope } from "../../../kube/list-objects.js";
import { ClusterReads, describeKubeError } from "../../../kube/cluster-reads.js";
import { cryptoRandom, nodeHasher, nodeSignatures, systemClock } from "../../../platform/node-ports.js";
import { offlineHosts } from "../../../platform/offline-context.js";
import type { RegistryAccess } from "../../../platform/registry/index.js";
import type { ValuesSpec } from "../../../platform/offline-values/values-file.js";
import { listed, wantedResources } from "./cluster-kinds.js";
import type { LoadReport } from "./load-performance.js";
import type { ClusterOptions } from "./options.js";

/** How many times one resource is evaluated again while its context entries find reads to make. */
const MAX_ROUNDS = 8;

interface ClusterLoad {
  readonly resources: Resource[];
  readonly errors: string[];
  readonly warnings: string[];
  /** With --show-performance: how the loading went (load-performance.ts). */
  performance?: LoadReport;
}

export class ClusterSession {
  readonly engine: Engine;
  private readonly reads: ClusterReads;
  /** The cluster's kinds typed from its /openapi/v3, as Kyverno's CLI with --cluster converts an ApplyConfiguration. */
  private readonly types: ReturnType<typeof createClusterTypedKinds>;
  /** What types a kind the cluster does not serve: `--crd-paths`' CRDs, then Kubernetes 1.32's built-in kinds. */
  private crds: readonly JsonObject[] = [];
  private fallback: TypedSchemaData | undefined;

  constructor(
    private readonly client: KubeClient,
    /** "kubeconfig X, context Y" or "in-cluster", for messages. */
    readonly origin: string,
    private readonly server: string,
    private readonly namespace: string | undefined,
    /** `--registry`: image data from registries; without it image reads stay ClusterReads' errors. */
    private readonly registry?: RegistryAccess,
    /** `--cluster-wide-resources` and `--show-performance`. */
    private readonly flags: { readonly clusterWide: boolean; readonly showPerformance: boolean } = {
      clusterWide: false,
      showPerformance: false,
    },
  ) {
    this.reads = new ClusterReads(client);
    this.types = createClusterTypedKinds({
      client,
      schemaOf: typedSchemaFromOpenApi,
      // A kind the cluster does not serve is typed with the built-in kinds of Kubernetes 1.32, as
      // Kyverno's CLI composes the cluster's OpenAPI with kubectl-validate's builtins.
      kindsOf: (data) =>
        typedKindsOf(() => mergeTypedSchemaData(data, (this.fallback ??= typedSchemaWithCrds(this.crds)))),
    });
    this.engine = createEngine({
      clock: systemClock,
      random: cryptoRandom,
      hasher: nodeHasher,
      context: this.contextSources(),
      hosts: offlineHosts,
      signatures: nodeSignatures,
      typedKinds: this.types.kinds,
    });
  }

  /** `--crd-paths`: their kinds are typed where the cluster serves no schema for them, as Kyverno's CLI composes them. */
  typeCrds(crds: readonly JsonObject[]): void {
    this.crds = crds;
    this.fallback = undefined;
  }

  /**
   * With a MutatingPolicy among `policies`: the cluster's OpenAPI v3 for the apiVersions of
   * `resources`, fetched before they are evaluated. A failure is that kind's patch error at
   * evaluation (TypedKinds.missing), never a pass; it is returned for a warning here.
   */
  async loadTypes(policies: readonly CompiledPolicy[], resources: readonly Resource[]): Promise<readonly string[]> {
    if (!policies.some(readsTypedKinds)) return [];
    const apiVersions = resources.flatMap((r) => (typeof r["apiVersion"] === "string" ? [r["apiVersion"]] : []));
    return (await this.types.load(apiVersions)).map((reason) => `--cluster: ${reason}`);
  }

  /** The live cluster's reads, with image data from `--registry` when it is given. */
  private contextSources(): ContextSources {
    const live = this.reads.sources();
    const registry = this.registry;
    if (registry === undefined) return live;
    return {
      ...live,
      canLoad: (kind) => kind === "imageRegistry" || live.canLoad(kind),
      imageData: (reference, request) =>
        registry.imageData(reference, request?.form ?? "metadata", request?.repository),
    };
  }

  /** Cluster reads and image fetches recorded and not made yet. */
  private get pending(): number {
    return this.reads.pending + (this.registry?.pending ?? 0);
  }

  /** The objects the policies can match; `names` (from `-r`) keeps only the objects of those names. */
  async load(policies: readonly CompiledPolicy[], names: readonly string[]): Promise<ClusterLoad> {
    const out: ClusterLoad = { resources: [], errors: [], warnings: [] };
    const started = process.hrtime.bigint();
    let discovery;
    try {
      discovery = await discover(this.client);
    } catch (e) {
      out.errors.push(
        `--cluster: cannot read the API server's discovery at ${this.server} (${this.origin}): ${describeKubeError(e)}`,
      );
      return out;
    }
    const chosen = new Map<string, ServedResource>();
    const clusterScoped = new Set<string>();
    const namespaced = new Set<string>();
    for (const w of wantedResources(policies)) {
      if (w.by === "kind" && w.subresource !== "" && w.subresource !== "*") {
        out.warnings.push(
          `--cluster: ${w.text} (policy ${w.policy}): subresources are not read from the cluster; its rules are checked only on manifests given with -r`,
        );
        continue;
      }
      const found = selectServed(discovery, w);
      if (found.length === 0)
        out.warnings.push(
          `--cluster: ${w.text} (policy ${w.policy}): the cluster serves no such kind (or it cannot be listed); nothing is listed for it`,
        );
      for (const r of found) {
        if (!listed(r, this.namespace, this.flags.clusterWide)) (r.namespaced ? namespaced : clusterScoped).add(r.kind);
        else chosen.set(`${r.group}/${r.resource}`, r);
      }
    }
    if (clusterScoped.size > 0)
      out.warnings.push(
        `--cluster -n ${this.namespace}: cluster-scoped kinds are not listed: ${[...clusterScoped].join(", ")} (--cluster-wide-resources lists them too)`,
      );
    if (namespaced.size > 0)
      out.warnings.push(
        `--cluster --cluster-wide-resources: only cluster-scoped kinds are listed (as in Kyverno; add -n NAMESPACE for a namespace's objects too); not listed: ${[...namespaced].join(", ")}`,
      );
    if (chosen.size > 0) out.warnings.push(...discovery.warnings);
    let apiCalls = 0;
    const failed: { type: string; error: string }[] = [];
    const lists = await Promise.all(
      [...chosen.values()].map(async (r) => {
        try {
          return await listObjects(this.client, r, this.namespace, () => apiCalls++);
        } catch (e) {
          const refused =
            e instanceof KubeError && e.status === 403
              ? ` (the kubeconfig's user needs the list verb on ${r.group === "" ? "" : `${r.group}/`}${r.resource})`
              : "";
          failed.push({ type: r.group === "" ? r.resource : `${r.resource}.${r.group}`, error: describeKubeError(e) });
          out.errors.push(
            `--cluster: cannot list ${listScope(r, this.namespace)} (${this.origin}): ${describeKubeError(e)}${refused}`,
          );
          return [];
        }
      }),
    );
    const all = lists.flat<Resource[][]>();
    if (this.flags.showPerformance)
      out.performance = {
        durationNs: process.hrtime.bigint() - started,
        loaded: all.length,
        apiCalls,
        workers: chosen.size,
        errors: failed,
      };
    if (names.length === 0) {
      out.resources.push(...all);
      return out;
    }
    for (const name of names) {
      const named = all.filter((r) => resourceName(r) === name);
      if (named.length === 0)
        out.errors.push(
          `-r ${name}: not a file or folder, and no object the policies match is named "${name}" in the cluster${this.namespace === undefined ? "" : ` (namespace ${this.namespace})`}`,
        );
      out.resources.push(...named);
    }
    return out;
  }

  /**
   * The values with each resource's namespace labels: a values file's labels where it gives some,
   * else the live Namespace's (as Kyverno's CLI reads them with --cluster). A namespace the cluster
   * does not have gets no labels, with a warning; any other failure is an error.
   */
  async namespaceLabels(
    values: ValuesSpec,
    resources: readonly Resource[],
  ): Promise<{ values: ValuesSpec; errors: string[]; warnings: string[] }> {
    const errors: string[] = [];
    const warnings: string[] = [];
    const wanted = new Set<string>();
    for (const r of resources) {
      const ns = resourceNamespace(r);
      if (
        ns !== "" &&
        resourceKind(r) !== "Namespace" &&
        Object.keys(values.namespaceLabels.get(ns) ?? {}).length === 0
      )
        wanted.add(ns);
    }
    const labels = new Map<string, Readonly<Record<string, string>>>();
    await Promise.all(
      [...wanted].map(async (ns) => {
        try {
          const got = (await this.client.getJson(`/api/v1/namespaces/${encodeURIComponent(ns)}`)) as {
            metadata?: { labels?: Record<string, string> };
          };
          labels.set(ns, got.metadata?.labels ?? {});
        } catch (e) {
          if (e instanceof KubeError && e.status === 404)
            warnings.push(
              `--cluster: namespace ${ns} is not in the cluster: its resources are matched with no namespace labels`,
            );
          else
            errors.push(
              `--cluster: cannot read namespace ${ns} for its labels (${this.origin}): ${describeKubeError(e)}`,
            );
        }
      }),
    );
    for (const [ns, l] of values.namespaceLabels) if (Object.keys(l).length > 0) labels.set(ns, l);
    return { values: { ...values, namespaceLabels: labels }, errors, warnings };
  }

  /** Runs `evaluate` until the context entries it reads (and, with --registry, the images) have all been read (at most MAX_ROUNDS more times). */
  async evaluate<T>(evaluate: () => T): Promise<T> {
    let result = evaluate();
    for (let round = 1; this.pending > 0 && round <= MAX_ROUNDS; round++) {
      await Promise.all([this.reads.settle(), this.registry?.settle()]);
      this.reads.finalRound(round === MAX_ROUNDS);
      result = evaluate();
    }
    this.reads.finalRound(false);
    return result;
  }

  close(): void {
    this.client.close();
  }
}

/** The session for `options`, or why there is no cluster to talk to. Nothing is sent yet. */
export function openCluster(
  options: ClusterOptions,
  env: Readonly<Record<string, string | undefined>>,
  registry?: RegistryAccess,
): Result<ClusterSession> {
  const home = join(homedir(), ".kube", "config");
  const fallback =
    options.kubeconfig === undefined && (env["KUBECONFIG"] ?? "") === "" && existsSync(home) ? home : undefined;
  const kubeconfig = options.kubeconfig ?? fallback;
  const connection = resolveConnection({
    ...(kubeconfig !== undefined ? { kubeconfigFlag: kubeconfig } : {}),
    ...(options.context !== undefined ? { context: options.context } : {}),
    env,
    now: () => Date.now(),
  });
  if (!connection.ok) return err("kube-config", `--cluster: ${connection.error.message}`);
  const client = new KubeClient({ connection: connection.value, qps: 50, burst: 100 });
  const flags = { clusterWide: options.clusterWide, showPerformance: options.showPerformance };
  return ok(
    new ClusterSession(client, connection.value.origin, connection.value.server, options.namespace, registry, flags),
  );
}

/** With --cluster, an `-r` value that is `-` or an existing file or folder is read as manifests; any other names objects in the cluster. */
export function splitResourceArgs(args: readonly string[]): { readonly paths: string[]; readonly names: string[] } {
  const paths: string[] = [];
  const names: string[] = [];
  for (const a of args) (a === "-" || existsSync(a) || /^[a-z][a-z0-9+.-]*:\/\//i.test(a) ? paths : names).push(a);
  return { paths, names };
}
