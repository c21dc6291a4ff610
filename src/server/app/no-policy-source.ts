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
