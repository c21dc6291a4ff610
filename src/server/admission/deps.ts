/**
 * The seam of the pure admission handlers: what they read (the engine, the current policy set,
 * cluster facts a request does not carry, the clock) and what they report to. Each piece is passed
 * in; nothing here is global.
 */
import type { PolicyAuthor } from "../registration/author-access.js";
import type {
  BackgroundWrite,
  CompiledPolicy,
  Engine,
  JsonObject,
  PolicyProblem,
  PolicyResponse,
} from "../../engine/index.js";
import type { AdmissionRecorder, ClusterFacts, PolicySnapshot } from "../types.js";
import type { AdmissionPlans } from "./plans.js";
import type { ClusterExceptions } from "./policy-validate-exception.js";
import type { ReviewRunner } from "./review-runner.js";
import type { ReviewCallsPort } from "./review-calls-loop.js";
import type { YamlV3Writer } from "./yaml-v3.js";
import type { GenerateWork } from "./generate-work.js";
import type { Runs } from "../policy-source/unserved-parts.js";

/** The cluster's kinds a MutatingPolicy's ApplyConfiguration is typed with (`--cluster`: its OpenAPI v3). */
export interface TypesPort {
  /** Whether this kind's types are loaded as the cluster serves them now (ClusterTypedKinds.ready). */
  ready(apiVersion: string, kind: string): boolean;
  /** Loads them; settles once they are loaded or failed, or after `seconds`, whichever comes first. */
  load(apiVersion: string, seconds: number): Promise<void>;
}

/** Everything a pure admission handler needs. */
export interface AdmissionDeps {
  readonly engine: Engine;
  readonly policies: () => PolicySnapshot;
  readonly cluster: ClusterFacts;
  readonly recorder: AdmissionRecorder;
  /** Monotonic clock in seconds (performance.now()/1000 in production; a fake in tests). */
  readonly now: () => number;
  /** Seconds a review may take before the handler answers per failurePolicy (below the webhook timeout). */
  readonly deadlineSeconds: number;
  /** Kyverno's `--exceptionNamespace`: when set, only PolicyExceptions in these namespaces are honoured. */
  readonly exceptionNamespaces?: readonly string[];
  /**
   * Which PolicyExceptions created in the cluster are honoured (`--enable-policy-exception`,
   * `--exception-namespace`; "folder" with `--policies`), for the policy webhook's warnings; without
   * it the webhook warns about none.
   */
  readonly clusterExceptions?: ClusterExceptions;
  /**
   * The cleanup controller runs (serve --cluster, or the cleanup component in other processes, once
   * started: a function read per request): the policy webhook admits valid cleanup policies instead of refusing them.
   */
  readonly cleanupController?: boolean | (() => boolean);
  /** What runs beyond admission now (generate rules), for the policy webhook's warnings; without it, generate runs where onGenerateWork is set. */
  readonly runs?: () => Runs;
  /** Per-snapshot plans of which policies each webhook evaluates; without it they are worked out per review. */
  readonly plans?: AdmissionPlans;
  /**
   * false: every policy of a phase is evaluated for every review, without the candidate index
   * (engine `indexPolicies`) that leaves out policies none of whose rules can match (the bench's
   * "before" and the differential tests). Default: the index is used.
   */
  readonly indexCandidates?: boolean;
  /** Writes denial messages, remembering key orders and scalars across reviews; without it each denial is written afresh. */
  readonly denialYaml?: YamlV3Writer;
  /**
   * Work a review of a batch may do inline before it leaves the batch, in checks of 1,024 units
   * (foreach elements, list items, containers, 64 JMESPath steps); default 32 (admission/deadline.ts).
   */
  readonly inlineChecks?: number;
  /** Where reviews that left their batch finish: the worker pool; default this thread, after the batch. */
  readonly runner?: ReviewRunner;
  /**
   * Network calls for context entries (apiCall POST, service calls): reviews through a webhook whose
   * policies make them are evaluated in passes (review-calls-loop.ts); without it, or for other
   * webhooks, nothing changes.
   */
  readonly calls?: ReviewCallsPort;
  /**
   * The cluster's kinds (`--cluster`): a review that runs a MutatingPolicy first waits, within its
   * deadline, for its object's apiVersion to be typed (the engine's typedKinds reads them); what is
   * not typed by then is that policy's error, never an unchecked merge.
   */
  readonly types?: TypesPort;
  /**
   * What `serve` checks of a policy beyond compiling it (its webhook as the API server will check it,
   * registration-check.ts), and whether its author may do what it makes the background controller
   * do (`author`: the user who wrote its spec; undefined when only its metadata changed): the policy
   * webhook denies a policy with any problem it returns.
   */
  readonly vetPolicy?: (policy: CompiledPolicy, author?: PolicyAuthor) => Promise<readonly PolicyProblem[]>;
  /**
   * Whether a cleanup policy's author may list and delete what it makes the cleanup controller
   * delete (`deletes`, the engine's `cleanupDeletes`): the policy webhook denies it with any problem
   * returned (registration-check.ts `vetCleanup`).
   */
  readonly vetCleanup?: (
    deletes: readonly BackgroundWrite[],
    author?: PolicyAuthor,
  ) => Promise<readonly PolicyProblem[]>;
  /**
   * Where the generate work of an allowed review goes (generate-work.ts, after-allowed.ts): the
   * generate controller stores it as UpdateRequests. Without it no work is looked for.
   */
  readonly onGenerateWork?: (work: readonly GenerateWork[]) => void;
  /**
   * Where the policy results of an allowed CREATE or UPDATE go (after-allowed.ts): the object as
   * admitted and the responses evaluated, for its PolicyReport. Without it none are kept.
   */
  readonly onAdmissionResults?: (resource: JsonObject, responses: readonly PolicyResponse[]) => void;
  /**
   * Each decided review's policy responses, for Events (src/controllers/events): called once the
   * answer is known, never for a dry run. It must only queue: the answer waits for it.
   */
  readonly onReviewed?: (reviewed: ReviewedRequest) => void;
}

/** What one decided review evaluated: the object (the old one for DELETE), the responses, and whether it was denied. */
export interface ReviewedRequest {
  readonly object: JsonObject;
  readonly responses: readonly PolicyResponse[];
  readonly blocked: boolean;
}

/** Whether the cleanup controller runs now (a flag, or the cleanup component's Lease read per request). */
export function cleanupControllerRuns(deps: Pick<AdmissionDeps, "cleanupController">): boolean {
  const runs = deps.cleanupController;
  return typeof runs === "function" ? runs() : runs === true;
}
