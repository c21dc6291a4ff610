/** A named group of policies Bylaw ships: `policies/<set>/set.yaml`, kind PolicySet. */
export interface PolicySet {
  /** metadata.name: what `--policy-set NAME` and `bylaw policy-sets NAME` take. */
  readonly name: string;
  readonly description: string;
  /** The set.yaml file. */
  readonly file: string;
  /** Its `policies` entries, resolved against the set's folder: policy files or folders. */
  readonly entries: readonly string[];
}

export interface PolicySetCatalog {
  readonly dir: string;
  /** Sorted by name. */
  readonly sets: readonly PolicySet[];
  /** Set files that could not be read, each naming the file and what is wrong. */
  readonly problems: readonly string[];
}

export const POLICY_SET_API_VERSION = "bylaw.dev/v1alpha1";
export const POLICY_SET_KIND = "PolicySet";
export const POLICY_SET_FILE = "set.yaml";
/** Overrides where the sets are read from (tests, or a folder of your own sets). */
export const POLICY_SETS_DIR_ENV = "BYLAW_POLICY_SETS_DIR";
