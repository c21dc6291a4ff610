/** What a generate rule makes: the object, the labels Kyverno puts on it, and where a clone came from. */
import type { Resource } from "./resource.js";

export interface SourceRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

export interface GeneratedResource {
  /** The object as `kyverno test` compares it with generatedResource: no Kyverno labels. */
  readonly resource: Resource;
  /** The labels Kyverno puts on the object when it creates it. */
  readonly labels: Readonly<Record<string, string>>;
  /** `resource` with `labels` merged into metadata.labels: what lands in the cluster. */
  readonly toApply: Resource;
  readonly synchronize: boolean;
  readonly orphanDownstreamOnPolicyDelete: boolean;
  /** The clone source (clone / cloneList only). */
  readonly source?: SourceRef;
}
