/**
 * The informers of the kinds a background scan lists: one per served resource (preferred version,
 * not a subresource, listable and watchable) that a background policy's kinds or resources
 * (policy-kinds.ts) resolve to through discovery, started when a kind appears and stopped when no policy names it any more.
 */
import type { Random } from "../../engine/index.js";
import { discover, selectServed, type ServedResource } from "../../kube/discovery.js";
import { Informer } from "../../kube/informer.js";
import type { KubeClient } from "../../kube/kube-client.js";
import { gvrKey } from "../../kube/types.js";
import type { ScanTarget } from "./policy-kinds.js";
import type { Log } from "./types.js";

interface WatchedKind {
  readonly informer: Informer;
  readonly served: ServedResource;
}

export class WatchedKinds {
  private readonly watched = new Map<string, WatchedKind>();
  private changes = 0;

  constructor(
    private readonly deps: {
      readonly client: KubeClient;
      readonly onLog: Log;
      readonly random: Random;
      readonly sleep: (ms: number) => Promise<void>;
    },
  ) {}

  /** Watches exactly the resources `targets` resolve to (discovery read now). */
  async follow(targets: readonly ScanTarget[]): Promise<void> {
    const discovery = await discover(this.deps.client);
    const wanted = new Map<string, ServedResource>();
    for (const { text, selector } of targets) {
      const found = selectServed(discovery, selector).filter((r) => r.verbs.includes("watch"));
      if (found.length === 0)
        this.deps.onLog("warn", "reports: a kind no resource serves is not scanned", { kind: text });
      for (const r of found) wanted.set(gvrKey(r), r);
    }
    for (const [key, { informer }] of this.watched)
      if (!wanted.has(key)) {
        informer.stop();
        this.watched.delete(key);
      }
    for (const [key, served] of wanted) if (!this.watched.has(key)) this.watched.set(key, this.start(served));
    this.changes++;
  }

  /**
   * Moves whenever a watched kind's cache changed (a list, a watch event) or the watched kinds did:
   * a scan pass that began at the same version, and left nothing waiting, has nothing new to scan.
   */
  get version(): number {
    return this.changes;
  }

  private start(served: ServedResource): WatchedKind {
    const informer = new Informer({
      client: this.deps.client,
      gvr: served,
      budgetBytes: 256 * 1024 * 1024,
      random: this.deps.random,
      sleep: this.deps.sleep,
      onLog: (level, message, fields) => this.deps.onLog(level, `reports: ${message}`, fields),
    });
    informer.onChange(() => this.changes++);
    informer.start();
    return { informer, served };
  }

  /** The watched kinds. */
  all(): WatchedKind[] {
    return [...this.watched.values()];
  }

  close(): void {
    for (const { informer } of this.watched.values()) informer.stop();
    this.watched.clear();
  }
}
