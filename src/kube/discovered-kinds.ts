/**
 * Kinds resolved through the API server's discovery for webhook registration, as Kyverno's webhook
 * controller resolves a policy's kinds (`FindResources` on its discovery client): a kind selector
 * (group, version, kind, subresource; `*` and `?` wildcards) becomes the exact resources that serve
 * it: group, plural, scope, and the subresource when one is named.
 *
 * `DiscoveredKinds` keeps the latest discovery and reads it again on `refresh()`. Kyverno
 * invalidates its discovery cache on a timer and rebuilds its webhooks every 10 s, so a CRD created
 * after the policy gets registered within a bounded time; the caller refreshes on each policy-set
 * change and on a timer, and re-registers when what discovery serves has changed.
 */
import { discover, glob, type Discovery, type ServedResource } from "./discovery.js";
import type { KubeClient } from "./kube-client.js";

export interface KindSelector {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly subresource: string;
}

/** One resource (with its subresource, `pods/status`) that serves a kind, in one group, whatever its versions. */
export interface KindResource {
  readonly group: string;
  readonly resource: string;
  readonly namespaced: boolean;
}

/**
 * The resources that serve a kind selector, one per group and resource (versions merged: the webhook
 * rule names the selector's version). A named subresource gives `<plural>/<sub>` where it is served;
 * `*` gives the plural and its served subresources.
 */
export function kindResources(discovery: Discovery, s: KindSelector): KindResource[] {
  const tops = discovery.resources.filter(
    (r) => !r.resource.includes("/") && glob(s.group, r.group) && glob(s.version, r.version) && glob(s.kind, r.kind),
  );
  const out = new Map<string, KindResource>();
  const add = (r: ServedResource, resource: string): void => {
    out.set(`${r.group}|${resource}`, { group: r.group, resource, namespaced: r.namespaced });
  };
  for (const top of tops) {
    if (s.subresource === "" || s.subresource === "*") add(top, top.resource);
    if (s.subresource === "") continue;
    for (const sub of discovery.resources) {
      if (sub.group !== top.group || sub.version !== top.version || !sub.resource.startsWith(`${top.resource}/`))
        continue;
      if (glob(s.subresource, sub.resource.slice(top.resource.length + 1))) add(top, sub.resource);
    }
  }
  return [...out.values()].sort((a, b) => `${a.group}|${a.resource}`.localeCompare(`${b.group}|${b.resource}`));
}

/** The latest discovery, read again on `refresh()`. */
export class DiscoveredKinds {
  private current: Discovery | undefined;
  private fingerprint = "";
  /** Answers of `resolve` since discovery last changed, by selector. */
  private resolved = new Map<string, KindResource[]>();
  /** Changes whenever what discovery serves does (each `refresh` that reports `changed`). */
  version = 0;

  constructor(private readonly client: KubeClient) {}

  /** Reads discovery again; true when what it serves changed (a CRD or API group came or went). Throws when it cannot be read. */
  async refresh(): Promise<{ readonly changed: boolean; readonly warnings: readonly string[] }> {
    const next = await discover(this.client);
    const print = next.resources
      .map((r) => `${r.group}/${r.version}/${r.resource}/${r.kind}/${r.namespaced}`)
      .sort()
      .join("\n");
    const changed = print !== this.fingerprint;
    this.current = next;
    this.fingerprint = print;
    if (changed) {
      this.version++;
      this.resolved = new Map();
    }
    return { changed, warnings: next.warnings };
  }

  /** The resources that serve a kind; undefined while discovery has never been read. */
  resolve(selector: KindSelector): KindResource[] | undefined {
    if (this.current === undefined) return undefined;
    const key = `${selector.group}|${selector.version}|${selector.kind}|${selector.subresource}`;
    let found = this.resolved.get(key);
    if (found === undefined) {
      found = kindResources(this.current, selector);
      this.resolved.set(key, found);
    }
    return [...found];
  }
}
