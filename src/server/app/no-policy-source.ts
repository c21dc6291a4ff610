/**
 * The policy source of a process whose components run no policy set (ADR 0018): the cleanup
 * component (its controller watches cleanup policies and DeletingPolicies itself) and the
 * monitoring component (it reads reports). They load no ClusterPolicy, Policy or policies.kyverno.io
 * policy, which their ServiceAccounts may not list (deploy/base/rbac): an empty set, loaded at once,
 * so readiness waits only for what the process does run.
 */
import type { Component } from "./components.js";
import { clusterFactsView, EMPTY_FACTS } from "../policy-source/cluster-facts.js";
import type { ServedPolicySource } from "./policy-source-setup.js";
import type { ExceptionScope } from "../policy-source/exception-scope.js";

/** The components that evaluate the policy set: admission (the webhooks), background (generate), reports (scans). */
const POLICY_SET_COMPONENTS: readonly Component[] = ["admission", "background", "reports"];

/** Whether a process running these components needs the policy set from the cluster. */
export function loadsPolicySet(components: readonly Component[]): boolean {
  return components.some((c) => POLICY_SET_COMPONENTS.includes(c));
}

export function noPolicySource(now: () => number): ServedPolicySource {
  const snapshot = { policies: [], generation: 1, loadedAt: now() };
  return {
    current: () => snapshot,
    lastError: () => undefined,
    onChange: () => () => undefined,
    close: () => Promise.resolve(),
    cluster: () => clusterFactsView(EMPTY_FACTS),
    readiness: () => ({ ok: true }),
  };
}

/**
 * Why a process that runs the cleanup component without a policy set refuses to start with
 * PolicyExceptions on: it reads none (its ServiceAccount may not list the policy set they come with),
 * so a DeletingPolicy would delete what one excepts. Refused, not half-served; undefined when it may start.
 */
export function cleanupAloneRefusal(o: {
  readonly components: readonly Component[];
  /** `--policies DIR`: the folder's exceptions are read. */
  readonly folder: boolean;
  readonly exceptions: ExceptionScope;
}): string | undefined {
  if (o.folder || loadsPolicySet(o.components) || !o.components.includes("cleanup") || !o.exceptions.enabled)
    return undefined;
  return "--enable-policy-exception: the cleanup component in a process of its own does not read PolicyExceptions yet, so a DeletingPolicy would delete what one excepts; run the cleanup controller beside the admission controller (--component admission --cleanup-controller) to honour them, or leave the flag off";
}
