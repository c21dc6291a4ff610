/**
 * One replica of a Bylaw component other than admission (background, reports, cleanup: ADR 0018) as
 * its own process against a cluster started `--with-bylaw`, as deploy/ runs it: `bylaw serve --cluster
 * --component C --leader-elect` in Bylaw's namespace, as the component's own ServiceAccount
 * (bylaw-C-controller, a TokenRequest token) with the RBAC deploy/base ships for it. Several may run
 * at once (replicas, each its own identity); stop with `stop()` (SIGTERM) or `kill("SIGKILL")`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { kubectlOk, type Cluster } from "./cluster-harness.js";
import { startServe, type ServeProcess } from "./serve-process.js";

export type ControllerComponent = "background" | "reports" | "cleanup";

/** The ServiceAccount deploy/base ships for a component (bylaw-monitoring elects no leader). */
export function componentAccount(component: ControllerComponent | "monitoring"): string {
  return component === "monitoring" ? "bylaw-monitoring" : `bylaw-${component}-controller`;
}

let replicas = 0;

/** A kubeconfig for the component's ServiceAccount, beside the admission controller's (DIR/bylaw.kubeconfig). */
async function componentKubeconfig(cluster: Cluster, component: ControllerComponent | "monitoring"): Promise<string> {
  const account = componentAccount(component);
  const token = (await kubectlOk(cluster, ["create", "token", account, "-n", "bylaw", "--duration=24h"])).trim();
  const admission = readFileSync(join(cluster.dir, "bylaw.kubeconfig"), "utf8");
  const path = join(cluster.dir, `${account}.kubeconfig`);
  writeFileSync(path, admission.replace(/token: .*/, `token: ${token}`), { mode: 0o600 });
  return path;
}

export async function startComponent(
  cluster: Cluster,
  component: ControllerComponent | "monitoring",
  extraArgs: readonly string[] = [],
): Promise<ServeProcess> {
  const kubeconfig = await componentKubeconfig(cluster, component);
  replicas++;
  return startServe(
    [
      "--cluster",
      "--kubeconfig",
      kubeconfig,
      "--component",
      component,
      // As deploy/ runs it: every component but monitoring (which elects none) leader-elected.
      ...(component === "monitoring" ? [] : ["--leader-elect", "--leader-elect-namespace", "bylaw"]),
      ...extraArgs,
    ],
    { env: { POD_NAMESPACE: "bylaw", POD_NAME: `bylaw-${component}-${replicas}` } },
  );
}
