/**
 * The election's Lease in the API server (coordination.k8s.io/v1): GET, POST to create, PUT with
 * the resourceVersion read (the server answers 409 Conflict when it is stale). Needs get, create
 * and update on leases in the Lease's namespace.
 */
import { KubeError, type KubeClient } from "./kube-client.js";

/** The Lease's spec as the election reads and writes it. Times are epoch milliseconds. */
export interface LeaseRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime: number;
  readonly renewTime: number;
  readonly leaseTransitions: number;
}

export interface StoredLease {
  readonly record: LeaseRecord;
  readonly resourceVersion: string;
}

/** Where the Lease lives. `create` and `update` reject on a conflict (exists already, stale resourceVersion). */
export interface LeaseStore {
  /** "namespace/name", for messages. */
  readonly name: string;
  get(): Promise<StoredLease | undefined>;
  create(record: LeaseRecord): Promise<StoredLease>;
  update(record: LeaseRecord, resourceVersion: string): Promise<StoredLease>;
}

interface LeaseJson {
  metadata?: { resourceVersion?: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export class KubeLeaseStore implements LeaseStore {
  readonly name: string;
  private readonly collection: string;

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly leaseName: string,
  ) {
    this.name = `${namespace}/${leaseName}`;
    this.collection = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  }

  async get(): Promise<StoredLease | undefined> {
    try {
      return fromJson(
        (await this.client.getJson(`${this.collection}/${encodeURIComponent(this.leaseName)}`)) as LeaseJson,
        this.name,
      );
    } catch (e) {
      if (e instanceof KubeError && e.status === 404) return undefined;
      throw e;
    }
  }

  async create(record: LeaseRecord): Promise<StoredLease> {
    return fromJson((await this.client.sendJson("POST", this.collection, this.body(record))) as LeaseJson, this.name);
  }

  async update(record: LeaseRecord, resourceVersion: string): Promise<StoredLease> {
    return fromJson(
      (await this.client.sendJson(
        "PUT",
        `${this.collection}/${encodeURIComponent(this.leaseName)}`,
        this.body(record, resourceVersion),
      )) as LeaseJson,
      this.name,
    );
  }

  private body(record: LeaseRecord, resourceVersion?: string): unknown {
    return {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: {
        name: this.leaseName,
        namespace: this.namespace,
        ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      },
      spec: {
        holderIdentity: record.holderIdentity,
        leaseDurationSeconds: record.leaseDurationSeconds,
        acquireTime: microTime(record.acquireTime),
        renewTime: microTime(record.renewTime),
        leaseTransitions: record.leaseTransitions,
      },
    };
  }
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function fromJson(lease: LeaseJson, name: string): StoredLease {
  const rv = lease.metadata?.resourceVersion;
  if (typeof rv !== "string" || rv === "") throw new KubeError(`Lease ${name}: the answer has no resourceVersion`, 0);
  const spec = lease.spec ?? {};
  const time = (t: string | undefined): number => (t === undefined ? 0 : Date.parse(t) || 0);
  return {
    resourceVersion: rv,
    record: {
      holderIdentity: spec.holderIdentity ?? "",
      leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
      acquireTime: time(spec.acquireTime),
      renewTime: time(spec.renewTime),
      leaseTransitions: spec.leaseTransitions ?? 0,
    },
  };
}
