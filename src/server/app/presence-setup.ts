/**
 * What the admission controller knows of the components that run in other processes (ADR 0018,
 * "Ready across processes"): it writes policy status, so a generate or mutate-existing rule is Ready
 * only while the background component is up, and a cleanup policy is admitted once the cleanup
 * component has been started. Read from each component's Lease (controllers/leader-election/
 * component-presence.ts) in Bylaw's namespace. Only the components this process does not run are
 * watched; none: undefined.
 */
import { ComponentPresence, type Presence } from "../../controllers/leader-election/component-presence.js";
import { componentDown, markCleanupPolicies } from "../../controllers/cleanup/index.js";
import { KubeLeaseStore } from "../../kube/lease-store.js";
import type { KubeClient } from "../../kube/kube-client.js";
import type { Runs } from "../policy-source/unserved-parts.js";
import { componentLease, type Component } from "./components.js";

type Log = (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;

/** The components other processes run, watched from the admission process; undefined: none to watch. */
export async function watchComponents(o: {
  readonly client: KubeClient;
  /** Where the components' Leases are (--leader-elect-namespace, else Bylaw's namespace). */
  readonly namespace: string;
  readonly elsewhere: readonly Component[];
  readonly onLog: Log;
}): Promise<ComponentPresence<Component> | undefined> {
  if (o.elsewhere.length === 0) return undefined;
  const presence = new ComponentPresence<Component>({
    leases: new Map(o.elsewhere.map((c) => [c, new KubeLeaseStore(o.client, o.namespace, componentLease(c, ""))])),
    now: Date.now,
    onLog: o.onLog,
  });
  await presence.start();
  return presence;
}

/** What runs beyond admission, as the background component's presence says: generate rules while it is up. */
export function backgroundRuns(presence: Presence): Runs {
  return presence.state === "running"
    ? { generate: true }
    : presence.state === "down"
      ? { backgroundDown: presence.why }
      : {};
}

/**
 * While the cleanup component is down, the admission leader sets every cleanup policy not Ready,
 * naming it (controllers/cleanup/component-down.ts): at each change of its state and every 30 s
 * (a policy created meanwhile). Returns the stop function.
 */
export function markCleanupWhileDown(o: {
  readonly presence: ComponentPresence<Component>;
  readonly client: KubeClient;
  readonly isLeader: () => boolean;
  readonly onLog: Log;
}): () => void {
  let busy = false;
  const mark = async (): Promise<void> => {
    const state = o.presence.of("cleanup");
    if (busy || state.state !== "down" || !o.isLeader()) return;
    busy = true;
    try {
      const written = await markCleanupPolicies({
        client: o.client,
        notReady: componentDown(state.why),
        now: Date.now(),
      });
      if (written > 0) o.onLog("info", "cleanup policies not Ready: the cleanup component is not running", { written });
    } catch (e) {
      o.onLog("warn", "cannot set cleanup policies not Ready", { error: e instanceof Error ? e.message : String(e) });
    } finally {
      busy = false;
    }
  };
  const off = o.presence.onChange(() => void mark());
  const timer = setInterval(() => void mark(), 30_000);
  timer.unref();
  return () => {
    off();
    clearInterval(timer);
  };
}
