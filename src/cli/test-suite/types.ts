/** One expected row (results entry × resource it names) and what Bylaw found for it. */
import type { PolicyExplanation } from "../../engine/index.js";
export interface RowResult {
  /**
   * Stable id: `<suite dir>::<entry index>::<resource>`, one check of the entry. Where the name stands
   * for several resources (a Role and a ClusterRole both named it) their rows share the id.
   */
  readonly id: string;
  /** A further resource of the name the row before checked: one check's rows, which passes when all of them do. */
  readonly sameCheck?: true;
  readonly policy: string;
  readonly rule: string;
  readonly resource: string;
  readonly kind: string;
  readonly expected: string;
  /** The policy-report result Bylaw produced, or null when no rule result was found. */
  readonly actual: string | null;
  readonly ok: boolean;
  /** `Ok`, `Want fail, got pass`, `Excluded`, `Not found`, `Invalid policy: …`, … */
  readonly reason: string;
  readonly message: string;
  /** The resource the row is about, as Kyverno's test table names it (`v1/Pod/default/web`); absent when none was found. */
  readonly subject?: string;
  /**
   * The rule whose result the row compared, as Kyverno's test table names it: the `autogen-` or
   * `autogen-cronjob-` rule for a Pod controller, the result's own name for a rule-less kind; absent
   * when none was (Excluded, Not found), where the table names `rule`, the row's rule as written.
   */
  readonly resultRule?: string;
}

export interface SuiteResult {
  /** The folder holding the kyverno-test.yaml. */
  readonly path: string;
  readonly file: string;
  readonly name: string;
  /** Set when the suite could not run (bad test file, missing file, …); every row then fails with it. */
  readonly error?: string;
  readonly warnings: readonly string[];
  /**
   * Problems in the suite's policy files (YAML errors, invalid policies, non-policy documents), each
   * naming the file, document and field. The suite's other rows still run; `bylaw test` exits 2.
   */
  readonly policyErrors?: readonly string[];
  readonly results: readonly RowResult[];
  /**
   * Checks left unchecked, as kyverno test leaves them (a patched resource missing from its file;
   * each is a warning): the suite ran and prints its table even when no row is left.
   */
  readonly unchecked?: number;
  /** What was loaded, as Kyverno's `test` lists it before its table; absent when the suite stopped loading. */
  readonly loaded?: SuiteLoaded;
  /** `bylaw test --explain`: how each policy's results on each resource came about. */
  readonly explanations?: readonly PolicyExplanation[];
}

/** What a suite loaded (Kyverno's commands/test/test.go prints a line per step and the counts). */
interface SuiteLoaded {
  readonly userInfo: boolean;
  readonly jsonPayloads: boolean;
  /** The test file has `httpPayloads` (Kyverno then says "Loading HTTP payloads ..."). */
  readonly httpPayloads: boolean;
  /** The test file has `envoyPayloads` ("Loading Envoy payloads ..."). */
  readonly envoyPayloads: boolean;
  readonly clusterResources: boolean;
  /** Resources named twice (same group, kind, namespace and name): `Kind name namespace`; the first is used. */
  readonly duplicates: readonly string[];
  readonly policies: number;
  /** Distinct resources. */
  readonly resources: number;
  /** The exceptions of the test's `exceptions` files. */
  readonly exceptions: number;
}
