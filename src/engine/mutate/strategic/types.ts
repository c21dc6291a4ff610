/**
 * The Kubernetes patch metadata a strategic merge walks with: one `SchemaNode` per API definition
 * (e.g. `io.k8s.api.core.v1.PodSpec`), holding only the fields that matter to a merge.
 */

/** One API definition. Fields absent here merge with no strategy (maps merge, lists replace). */
export interface SchemaNode {
  /** The definition name, e.g. `io.k8s.api.core.v1.PodSpec`. */
  readonly name: string;
  readonly fields: Readonly<Record<string, FieldSchema>>;
  /** For a map of definitions (`values`): the schema every entry shares. */
  readonly anyField?: FieldSchema;
}

/** How one field merges. */
export interface FieldSchema {
  /** The definition of a map-valued field (for `values` fields, a node whose `anyField` is the entry). */
  readonly node?: SchemaNode;
  /** Set when the field is a list. */
  readonly list?: ListSchema;
  /** The raw `x-kubernetes-patch-strategy` of the field, e.g. `retainKeys` or `merge,retainKeys`. */
  readonly strategy?: string;
  /** The map honours `$retainKeys` (its strategy, or its list's strategy, includes `retainKeys`). */
  readonly retainKeys: boolean;
}

/** How a list merges. */
export interface ListSchema {
  /** The raw strategy: `merge`, `merge,retainKeys`, `replace`, or undefined (atomic). */
  readonly strategy?: string;
  /** The strategy includes `merge`: elements merge by key (or, for scalars, as a set). */
  readonly merge: boolean;
  /** `x-kubernetes-patch-merge-key`, e.g. `name` for containers. */
  readonly mergeKey?: string;
  /**
   * The keys that identify an element, as kustomize's kyaml uses them: `x-kubernetes-list-map-keys`
   * when given (ports: containerPort + protocol), else the merge key. Empty for a set of scalars.
   */
  readonly keys: readonly string[];
  /** The element definition, when it holds fields that matter to a merge. */
  readonly items?: SchemaNode;
  /** Elements honour `$retainKeys` (strategy `merge,retainKeys`, e.g. volumes). */
  readonly retainKeys: boolean;
}
