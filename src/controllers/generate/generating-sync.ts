/**
 * Synchronize for GeneratingPolicies (Kyverno 1.19 `spec.evaluation.synchronize.enabled`), beyond
 * the trigger's own admission reviews: the generate controller watches, on the leader,
 * - each kind a synchronized GeneratingPolicy has generated (objects carrying
 *   generate.kyverno.io/policy-name only): a copy someone else changed or deleted runs its trigger
 *   again, so the drift is reverted and a deleted copy comes back;
 * - each object its generate expressions read with `resource.Get` (a clone source, watched by
 *   name): when it changes, every trigger with a copy of that policy runs again, so the change
 *   reaches each copy.
 * Which kinds and sources to watch is learned from the requests the controller runs (`note`), so a
 * restarted controller watches again once each policy has run for a trigger. The controller's own
 * writes (their resourceVersions) bring no work. At most MAX_WATCHES watches are held; past that
 * the log says what is not watched.
 */
import type { CompiledPolicy, Random, Resource, ResourceRead } from "../../engine/index.js";
import { describeKubeError } from "../../kube/cluster-reads.js";
import { Informer } from "../../kube/informer.js";
import type { KubeClient } from "../../kube/kube-client.js";
import type { Gvr, KubeObject } from "../../kube/types.js";
import { copiesWork, downstreamEventWork, synchronizedGenerating } from "./generating-sync-work.js";
import type { KindPaths } from "./kind-paths.js";
import type { GenerateWorkItem, ResourceSpec } from "./update-request.js";

const MAX_WATCHES = 200;
const WRITTEN_KEPT = 10_000;
const POLICY_LABEL = "generate.kyverno.io/policy-name";

type Log = (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;

interface SyncDeps {
  readonly client: KubeClient;
  readonly paths: KindPaths;
  readonly policies: () => readonly CompiledPolicy[];
  readonly submit: (work: GenerateWorkItem) => void;
  readonly random: Random;
  readonly onLog: Log;
}

/** What one completed `cel-generate` request did: what it generated, what it read, the resourceVersions it wrote. */
interface SyncNote {
  readonly generated: readonly ResourceSpec[];
  readonly sources?: readonly ResourceRead[];
  readonly written?: readonly string[];
}

interface WatchSelect {
  readonly namespace?: string;
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
}

interface DownstreamKind {
  readonly gvr: Gvr;
  /** The collection path across all namespaces. */
  readonly collection: string;
}

export class GeneratingSync {
  /** Downstream watches by collection path. */
  private readonly downstream = new Map<string, Informer>();
  /** Source watches by object path, with the policies that read the object. */
  private readonly sources = new Map<string, { informer: Informer; policies: Set<string> }>();
  /** The downstream kinds each policy has generated (collection paths). */
  private readonly kindsOf = new Map<string, Map<string, DownstreamKind>>();
  private readonly written = new Set<string>();
  private full = false;

  constructor(private readonly deps: SyncDeps) {}

  async note(policyKey: string, note: SyncNote): Promise<void> {
    for (const rv of note.written ?? []) this.remember(rv);
    if (synchronizedGenerating(this.deps.policies(), policyKey) === undefined) return;
    const kinds = this.kindsOf.get(policyKey) ?? new Map<string, DownstreamKind>();
    this.kindsOf.set(policyKey, kinds);
    for (const g of note.generated) {
      const where = await this.deps.paths.resolve(g.apiVersion, g.kind);
      if (where === undefined) continue;
      const r = where.resource;
      const kind = {
        gvr: { group: r.group, version: r.version, resource: r.resource },
        collection: where.collection(""),
      };
      kinds.set(kind.collection, kind);
      if (!this.downstream.has(kind.collection) && this.room(`${r.kind} downstream`))
        this.downstream.set(kind.collection, this.watchDownstream(kind.gvr));
    }
    for (const s of note.sources ?? []) {
      const path = sourcePath(s);
      const known = this.sources.get(path);
      if (known !== undefined) known.policies.add(policyKey);
      else if (this.room(`${s.resource} ${s.namespace}/${s.name}`))
        this.sources.set(path, { informer: this.watchSource(s, path), policies: new Set([policyKey]) });
    }
  }

  close(): void {
    for (const i of this.downstream.values()) i.stop();
    for (const s of this.sources.values()) s.informer.stop();
    this.downstream.clear();
    this.sources.clear();
  }

  private remember(rv: string): void {
    if (this.written.size >= WRITTEN_KEPT) this.written.clear();
    this.written.add(rv);
  }

  /** Whether another watch may start; the first refusal is logged. */
  private room(what: string): boolean {
    if (this.downstream.size + this.sources.size < MAX_WATCHES) return true;
    if (!this.full)
      this.deps.onLog("warn", "generate: too many synchronize watches; changes to further objects are not followed", {
        limit: MAX_WATCHES,
        notWatched: what,
      });
    this.full = true;
    return false;
  }

  /** Whether an event is the controller's own write (seen once). */
  private own(object: KubeObject): boolean {
    const rv = object.metadata?.resourceVersion ?? "";
    return rv !== "" && this.written.delete(rv);
  }

  /** A watch of `gvr` (as `select` narrows it) whose changes and deletions, not its own writes, go to `onChange`. */
  private watch(gvr: Gvr, select: WatchSelect, onChange: (object: KubeObject, deleted: boolean) => void): Informer {
    const informer = new Informer({
      client: this.deps.client,
      gvr,
      budgetBytes: 16 * 1024 * 1024,
      random: this.deps.random,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms).unref()),
      ...select,
      onEvent: (event, object) => {
        if (event === "added" || this.own(object)) return;
        onChange(object, event === "deleted");
      },
      onLog: this.deps.onLog,
    });
    informer.start();
    return informer;
  }

  private watchDownstream(gvr: Gvr): Informer {
    return this.watch(gvr, { labelSelector: POLICY_LABEL }, (object) => {
      const work = downstreamEventWork(object, this.deps.policies());
      if (work !== undefined) this.deps.submit(work);
    });
  }

  private watchSource(s: ResourceRead, path: string): Informer {
    const [group, version] = s.apiVersion.includes("/") ? s.apiVersion.split("/", 2) : ["", s.apiVersion];
    const gvr = { group: group ?? "", version: version ?? "", resource: s.resource };
    const select = {
      fieldSelector: `metadata.name=${s.name}`,
      ...(s.namespace !== "" ? { namespace: s.namespace } : {}),
    };
    return this.watch(gvr, select, (_object, deleted) => {
      if (!deleted) void this.sourceChanged(path);
    });
  }

  /** A source changed: every trigger with a copy, for each synchronized policy that read it. */
  private async sourceChanged(path: string): Promise<void> {
    for (const key of this.sources.get(path)?.policies ?? []) {
      const policy = synchronizedGenerating(this.deps.policies(), key);
      if (policy === undefined) continue;
      const selector = `${POLICY_LABEL}=${policy.name.slice(0, 63)}`;
      for (const kind of this.kindsOf.get(key)?.values() ?? []) {
        try {
          const list = (await this.deps.client.getJson(
            `${kind.collection}?labelSelector=${encodeURIComponent(selector)}`,
          )) as { items?: Resource[] };
          for (const w of copiesWork(policy, list.items ?? [])) this.deps.submit(w);
        } catch (e) {
          this.deps.onLog("warn", "generate: cannot list the copies of a changed source", {
            policy: key,
            source: path,
            error: describeKubeError(e),
          });
        }
      }
    }
  }
}

function sourcePath(s: ResourceRead): string {
  const base = s.apiVersion.includes("/") ? `/apis/${s.apiVersion}` : `/api/${s.apiVersion}`;
  const ns = s.namespace === "" ? "" : `/namespaces/${s.namespace}`;
  return `${base}${ns}/${s.resource}/${s.name}`;
}
