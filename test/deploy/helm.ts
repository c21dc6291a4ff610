/** Run the helm binary on charts/bylaw, and compare renders with kustomize's. */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { at, repoRoot, type Manifest } from "./render.js";
import { textOf } from "../../src/engine/index.js";

/** Labels only Helm adds (kustomize adds app.kubernetes.io/part-of, as the chart does). */
export const HELM_ONLY_LABELS = [
  "app.kubernetes.io/managed-by",
  "app.kubernetes.io/instance",
  "app.kubernetes.io/version",
  "helm.sh/chart",
];

/**
 * The helm binary: $BYLAW_HELM, `helm` on PATH, or the one scripts/cluster.sh builds into its
 * cache (docs/adr/0007), at the version scripts/cluster/helm/go.mod pins.
 */
export function helmBinary(): string | undefined {
  const candidates: string[] = [];
  if (process.env["BYLAW_HELM"] !== undefined) candidates.push(process.env["BYLAW_HELM"]);
  candidates.push("helm");
  const goMod = join(repoRoot(), "scripts", "cluster", "helm", "go.mod");
  const version = existsSync(goMod)
    ? /^\s*(?:require\s+)?helm\.sh\/helm\/v4\s+(v\S+)/m.exec(readFileSync(goMod, "utf8"))?.[1]
    : undefined;
  if (version !== undefined)
    candidates.push(
      join(process.env["BYLAW_CLUSTER_CACHE"] ?? join(homedir(), ".cache", "bylaw-cluster"), `helm-${version}`, "helm"),
    );
  return candidates.find(
    (bin) => spawnSync(bin, ["version", "--short"], { stdio: "ignore", timeout: 30_000 }).status === 0,
  );
}

/** Why the helm tests cannot run here, or undefined when helm is available. */
export function helmMissing(): string | undefined {
  return helmBinary() === undefined
    ? "helm is not installed: not on PATH, not $BYLAW_HELM, and not built by `scripts/cluster.sh build` (~/.cache/bylaw-cluster/helm-<version>/helm); charts/bylaw was not checked"
    : undefined;
}

export function helm(args: readonly string[]): string {
  const bin = helmBinary();
  if (bin === undefined) throw new Error(helmMissing());
  return execFileSync(bin, [...args], {
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/**
 * The API server's addresses the tests give the NetworkPolicy, which is on by default and needs
 * them (the example overlay's, so that the chart's render and the overlay's compare).
 */
export const TEST_API_SERVER_CIDR = "192.0.2.0/28";

/**
 * `helm template bylaw charts/bylaw -n bylaw` with --set-json values; CRDs are not rendered.
 * networkPolicy.apiServerCIDRs is TEST_API_SERVER_CIDR unless the values set it (or networkPolicy).
 */
export function helmTemplate(values: Record<string, unknown> = {}): Manifest[] {
  const sets = [
    "--set-json",
    `networkPolicy.apiServerCIDRs=${JSON.stringify([TEST_API_SERVER_CIDR])}`,
    ...Object.entries(values).flatMap(([k, v]) => ["--set-json", `${k}=${JSON.stringify(v)}`]),
  ];
  return parseYaml(helm(["template", "bylaw", join(repoRoot(), "charts", "bylaw"), "--namespace", "bylaw", ...sets]));
}

/** The error helm prints when a render fails, or undefined when it renders. */
export function helmTemplateError(values: Record<string, unknown>): string | undefined {
  try {
    helmTemplate(values);
    return undefined;
  } catch (e) {
    return String((e as { stderr?: unknown }).stderr ?? e);
  }
}

export function parseYaml(text: string): Manifest[] {
  return parseAllDocuments(text).flatMap((d) => {
    if (!("toJS" in d) || d.errors.length > 0) throw new Error("invalid YAML");
    const value = d.toJS() as Manifest | null;
    return value === null ? [] : [value];
  });
}

/** An object without Helm's own labels, for comparison with kustomize's render. */
export function normalise(m: Manifest): Manifest {
  const copy = structuredClone(m);
  const labels = at(copy, "metadata", "labels") as Record<string, unknown> | undefined;
  if (labels !== undefined) for (const key of HELM_ONLY_LABELS) delete labels[key];
  return copy;
}

/** kind/namespace/name, the identity of an object. */
export function identity(m: Manifest): string {
  return `${String(m["kind"])}/${textOf(at(m, "metadata", "namespace") ?? "")}/${String(at(m, "metadata", "name"))}`;
}

/** Objects keyed by identity, normalised. */
export function byIdentity(manifests: readonly Manifest[]): Map<string, Manifest> {
  return new Map(manifests.map((m) => [identity(m), normalise(m)]));
}
