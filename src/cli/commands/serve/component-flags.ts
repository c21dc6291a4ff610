/**
 * `bylaw serve --component admission|background|reports|cleanup` (repeatable; default admission),
 * checked into the components the process runs (server/app/components.ts, ADR 0018).
 */
import { COMPONENTS, isComponent, type Component } from "../../../server/app/components.js";

export const COMPONENT_FLAG_OPTIONS = {
  component: { type: "string", multiple: true },
} as const;

type Flags = {
  readonly component?: readonly string[] | undefined;
  readonly policies?: string | undefined;
  readonly cluster?: boolean | undefined;
  readonly kubeconfig?: string | undefined;
  readonly register?: boolean | undefined;
  readonly "tls-secret"?: string | undefined;
  readonly "cleanup-controller"?: boolean | undefined;
  readonly "reports-controller"?: boolean | undefined;
};

/**
 * The components asked for, each once, in the order given; or what is wrong with the flags.
 * `namespace` is Bylaw's (where the background component keeps its UpdateRequests).
 */
export function componentsFrom(
  values: Flags,
  namespace?: string,
): { ok: true; value: Component[] } | { ok: false; error: string } {
  const given = values.component ?? ["admission"];
  const unknown = given.find((c) => !isComponent(c));
  if (unknown !== undefined)
    return { ok: false, error: `--component must be ${COMPONENTS.join(", ")} (got ${JSON.stringify(unknown)})` };
  const components = [...new Set(given)] as Component[];
  const fromCluster = values.policies === undefined && (values.cluster === true || values.kubeconfig !== undefined);
  const needsCluster = [
    ...components.filter((c) => c !== "admission").map((c) => `--component ${c}`),
    ...(["cleanup-controller", "reports-controller"] as const).filter((f) => values[f] === true).map((f) => `--${f}`),
  ];
  if (needsCluster.length > 0 && !fromCluster)
    return {
      ok: false,
      error: `${needsCluster[0]} needs policies from the cluster (--cluster or --kubeconfig FILE), not --policies DIR`,
    };
  if (components.includes("background") && namespace === undefined)
    return {
      ok: false,
      error:
        "--component background needs Bylaw's namespace for its UpdateRequests: set POD_NAMESPACE or --service-namespace",
    };
  if (!components.includes("admission")) {
    const admissionOnly = [
      ...(values.register === true ? ["--register"] : []),
      ...(values["tls-secret"] !== undefined ? ["--tls-secret"] : []),
      ...(values["cleanup-controller"] === true ? ["--cleanup-controller"] : []),
      ...(values["reports-controller"] === true ? ["--reports-controller"] : []),
    ];
    if (admissionOnly.length > 0)
      return {
        ok: false,
        error: `${admissionOnly[0]} is the admission controller's: add --component admission, or drop it (the ${components.join(", ")} component serves only health and metrics; use --self-signed or --tls-cert-file for that port)`,
      };
  }
  return { ok: true, value: components };
}
