/** Baseline checks on security profiles and kernel settings: AppArmor, SELinux, seccomp, sysctls, probe hosts. */
import type { JsonObject } from "../api/json.js";
import { forbidden, str, type CheckDefinition, type CheckFailure } from "./check-types.js";
import { compareCodePoints } from "../go/strings.js";
import { goQuote } from "../go/quote.js";
import { containers, joinQuote, pluralize, sortedSet } from "./go-format.js";
import { obj, objects, text, visitContainers } from "./read.js";
import { profileTypes } from "./profile-types.js";
import type { PodView, PssFieldError } from "./types.js";

/** Annotation entries `key="value"` with their field errors, sorted by entry. */
function annotationEntries(
  pod: PodView,
  bad: (key: string, value: string) => boolean,
): { entry: string; error: PssFieldError }[] {
  return Object.entries(pod.annotations)
    .filter(([k, v]) => bad(k, v))
    .map(([k, v]) => ({ entry: `${k}=${goQuote(v)}`, error: forbidden(`metadata.annotations[${k}]`, str(v)) }))
    .sort((a, b) => compareCodePoints(a.entry, b.entry));
}

const APPARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/";
const allowedAppArmorType = (t: string): boolean => t === "RuntimeDefault" || t === "Localhost";

/** appArmorProfile.type of the pod and containers, and the deprecated per-container annotations. */
function appArmorProfile(pod: PodView): CheckFailure | undefined {
  const { setters, badValues, errors } = profileTypes(pod, "appArmorProfile", allowedAppArmorType);
  const annotations = annotationEntries(
    pod,
    (k, v) => k.startsWith(APPARMOR_PREFIX) && !(v === "" || v === "runtime/default" || v.startsWith("localhost/")),
  );
  const badValueList = [...sortedSet(badValues), ...annotations.map((a) => a.entry)];
  if (annotations.length > 0) {
    setters.push(pluralize("annotation", "annotations", annotations.length));
    errors.push(...annotations.map((a) => a.error));
  }
  if (setters.length === 0) return undefined;
  return {
    reason: pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", badValueList.length),
    detail: `${setters.join(" and ")} must not set AppArmor profile type to ${joinQuote(badValueList)}`,
    errors,
  };
}

const SELINUX_TYPES_1_0 = ["", "container_t", "container_init_t", "container_kvm_t"];
const SELINUX_TYPES_1_31 = [...SELINUX_TYPES_1_0, "container_engine_t"];

/** seLinuxOptions of the pod and containers: an allowed type, no user, no role. */
function seLinuxOptions(allowedTypes: readonly string[]) {
  return (pod: PodView): CheckFailure | undefined => {
    const setters: string[] = [];
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const podErrors: PssFieldError[] = [];
    const containerErrors: PssFieldError[] = [];
    const valid = (opts: JsonObject, prefix: string, out: PssFieldError[]): boolean => {
      let ok = true;
      const type = text(opts, "type") ?? "";
      if (!allowedTypes.includes(type)) {
        ok = false;
        badTypes.push(type);
        out.push(forbidden(`${prefix}.seLinuxOptions.type`, str(type)));
      }
      for (const key of ["user", "role"] as const) {
        const value = text(opts, key) ?? "";
        if (value === "") continue;
        ok = false;
        if (key === "user") setUser = true;
        else setRole = true;
        out.push(forbidden(`${prefix}.seLinuxOptions.${key}`, str(value)));
      }
      return ok;
    };
    const podOpts = obj(obj(pod.spec, "securityContext"), "seLinuxOptions");
    if (podOpts !== undefined && !valid(podOpts, "spec.securityContext", podErrors)) setters.push("pod");
    const bad: string[] = [];
    visitContainers(pod.spec, (c, path, name) => {
      const opts = obj(obj(c, "securityContext"), "seLinuxOptions");
      if (opts !== undefined && !valid(opts, `${path}.securityContext`, containerErrors)) bad.push(name);
    });
    if (bad.length > 0) setters.push(containers(bad));
    if (setters.length === 0) return undefined;
    const data: string[] = [];
    const types = sortedSet(badTypes);
    if (types.length > 0) data.push(`${pluralize("type", "types", types.length)} ${joinQuote(types)}`);
    if (setUser) data.push("user may not be set");
    if (setRole) data.push("role may not be set");
    return {
      reason: "seLinuxOptions",
      detail: `${setters.join(" and ")} set forbidden securityContext.seLinuxOptions: ${data.join("; ")}`,
      errors: [...podErrors, ...containerErrors],
    };
  };
}

const POD_SECCOMP_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod";
const CONTAINER_SECCOMP_PREFIX = "container.seccomp.security.alpha.kubernetes.io/";
const validSeccompAnnotation = (v: string): boolean =>
  v === "runtime/default" || v === "docker/default" || v.startsWith("localhost/");
export const validSeccompType = (t: string): boolean => t === "RuntimeDefault" || t === "Localhost";

/** v1.0: the alpha seccomp annotations of the pod and of each container. */
function seccompBaselineAnnotations(pod: PodView): CheckFailure | undefined {
  const names = new Set<string>([POD_SECCOMP_ANNOTATION]);
  visitContainers(pod.spec, (_c, _path, name) => names.add(CONTAINER_SECCOMP_PREFIX + name));
  const found = annotationEntries(pod, (k, v) => names.has(k) && !validSeccompAnnotation(v));
  if (found.length === 0) return undefined;
  return {
    reason: "seccompProfile",
    detail: `forbidden ${pluralize("annotation", "annotations", found.length)} ${found.map((f) => f.entry).join(", ")}`,
    errors: found.map((f) => f.error),
  };
}

/** v1.19: seccompProfile.type of the pod and containers, when set, is RuntimeDefault or Localhost. */
function seccompBaselineFields(pod: PodView): CheckFailure | undefined {
  const { setters, badValues, errors } = profileTypes(pod, "seccompProfile", validSeccompType);
  if (setters.length === 0) return undefined;
  const detail = `${setters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}`;
  return { reason: "seccompProfile", detail, errors };
}

const SYSCTLS_1_0 = [
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_unprivileged_port_start",
];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, "net.ipv4.ip_local_reserved_ports"];
const SYSCTLS_1_29 = [
  ...SYSCTLS_1_27,
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"];

/** spec.securityContext.sysctls[*].name: only the safe set of the version. */
function sysctls(allowed: readonly string[]) {
  return (pod: PodView): CheckFailure | undefined => {
    const names: string[] = [];
    const errors: PssFieldError[] = [];
    objects(obj(pod.spec, "securityContext"), "sysctls").forEach((s, i) => {
      const name = text(s, "name") ?? "";
      if (allowed.includes(name)) return;
      names.push(name);
      errors.push(forbidden(`spec.securityContext.sysctls[${i}].name`, str(name)));
    });
    return names.length === 0 ? undefined : { reason: "forbidden sysctls", detail: names.join(", "), errors };
  };
}

const PROBES = ["livenessProbe", "readinessProbe", "startupProbe"] as const;

/** v1.34: no `host` in probes (httpGet, tcpSocket) and lifecycle handlers (postStart, preStop). */
function hostProbesAndHostLifecycle(pod: PodView): CheckFailure | undefined {
  const bad = new Set<string>();
  const hosts = new Set<string>();
  const errors: PssFieldError[] = [];
  visitContainers(pod.spec, (c, path, name) => {
    const handlers: [JsonObject | undefined, string][] = PROBES.map((p) => [obj(c, p), `${path}.${p}`]);
    const lifecycle = obj(c, "lifecycle");
    for (const h of ["postStart", "preStop"]) handlers.push([obj(lifecycle, h), `${path}.lifecycle.${h}`]);
    for (const [handler, at] of handlers) {
      for (const action of ["httpGet", "tcpSocket"]) {
        const host = text(obj(handler, action), "host") ?? "";
        if (host === "") continue;
        bad.add(name);
        hosts.add(host);
        errors.push(forbidden(`${at}.${action}.host`, str(host)));
      }
    }
  });
  if (bad.size === 0) return undefined;
  const names = sortedSet(bad);
  const hostList = sortedSet(hosts);
  const detail = `${containers(names)} ${pluralize("uses", "use", names.length)} ${pluralize("probe or lifecycle host", "probe or lifecycle hosts", hostList.length)} ${joinQuote(hostList)}`;
  return { reason: "probe or lifecycle host", detail, errors };
}

export const PROFILE_CHECKS: readonly CheckDefinition[] = [
  { id: "appArmorProfile", level: "baseline", versions: [{ minor: 0, run: appArmorProfile }] },
  { id: "hostProbesAndHostLifecycle", level: "baseline", versions: [{ minor: 34, run: hostProbesAndHostLifecycle }] },
  {
    id: "seLinuxOptions",
    level: "baseline",
    versions: [
      { minor: 0, run: seLinuxOptions(SELINUX_TYPES_1_0) },
      { minor: 31, run: seLinuxOptions(SELINUX_TYPES_1_31) },
    ],
  },
  {
    id: "seccompProfile_baseline",
    level: "baseline",
    versions: [
      { minor: 0, run: seccompBaselineAnnotations },
      { minor: 19, run: seccompBaselineFields },
    ],
  },
  {
    id: "sysctls",
    level: "baseline",
    versions: [
      { minor: 0, run: sysctls(SYSCTLS_1_0) },
      { minor: 27, run: sysctls(SYSCTLS_1_27) },
      { minor: 29, run: sysctls(SYSCTLS_1_29) },
      { minor: 32, run: sysctls(SYSCTLS_1_32) },
    ],
  },
];
