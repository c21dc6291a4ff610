/**
 * Leader election for the components a process runs besides the admission controller (background,
 * reports, cleanup; ADR 0018): with --leader-elect each elects on its own Lease (components.ts), with
 * the same timings, so a process that runs several leads each independently. The admission
 * controller's Lease and certificate Secret stay in ha-setup.ts.
 */
import { setUpHa, type HaSettings } from "./ha-setup.js";
import { componentElects, componentLease, type Component } from "./components.js";

type Log = (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;

export interface ComponentElectors {
  /** Whether this replica leads `component` now; undefined: no leader election (every replica acts). */
  isLeader(component: Component): (() => boolean) | undefined;
  close(): Promise<void>;
}

export async function componentElectors(o: {
  readonly components: readonly Component[];
  readonly ha: HaSettings | undefined;
  readonly onLog: Log;
}): Promise<{ ok: true; value: ComponentElectors } | { ok: false; error: string }> {
  const electors = new Map<Component, { isLeader(): boolean }>();
  const closers: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    for (const c of closers) await c();
  };
  if (o.ha !== undefined)
    for (const component of o.components.filter(componentElects)) {
      const set = await setUpHa(
        { ...o.ha, leaseName: componentLease(component, o.ha.leaseName), tlsSecret: undefined },
        (lvl, msg, fields) => o.onLog(lvl, msg, { component, ...fields }),
      );
      if (!set.ok) {
        await close();
        return set;
      }
      const elector = set.value.elector;
      if (elector !== undefined) electors.set(component, elector);
      closers.push(() => set.value.close());
    }
  return {
    ok: true,
    value: {
      isLeader: (component) => {
        const elector = electors.get(component);
        return elector === undefined ? undefined : () => elector.isLeader();
      },
      close,
    },
  };
}
