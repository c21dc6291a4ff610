/**
 * Baseline checks on host access and privileges: host namespaces, hostPath volumes, host ports,
 * privileged containers, /proc mount, Windows HostProcess and added capabilities.
 */
import { forbidden, strings, str, TRUE, type CheckDefinition, type CheckFailure } from "./check-types.js";
import { containers, joinQuote, pluralize, sortedSet } from "./go-format.js";
import { flag, num, obj, objects, text, texts, visitContainers } from "./read.js";
import type { PodView, PssFieldError } from "./types.js";

/** spec.hostNetwork, spec.hostPID, spec.hostIPC: unset or false. */
function hostNamespaces(pod: PodView): CheckFailure | undefined {
  const data: string[] = [];
  const errors: PssFieldError[] = [];
  for (const key of ["hostNetwork", "hostPID", "hostIPC"]) {
    if (flag(pod.spec, key) === true) {
      data.push(`${key}=true`);
      errors.push(forbidden(`spec.${key}`, TRUE));
    }
  }
  return data.length === 0 ? undefined : { reason: "host namespaces", detail: data.join(", "), errors };
}

/** spec.volumes[*].hostPath: unset. */
function hostPathVolumes(pod: PodView): CheckFailure | undefined {
  const names: string[] = [];
  const errors: PssFieldError[] = [];
  objects(pod.spec, "volumes").forEach((v, i) => {
    const hostPath = obj(v, "hostPath");
    if (hostPath === undefined) return;
    names.push(text(v, "name") ?? "");
    // Kyverno's pod-security-admission fork names the path as the bad value (none when it is empty).
    errors.push(forbidden(`spec.volumes[${i}].hostPath`, str(text(hostPath, "path") ?? "")));
  });
  if (names.length === 0) return undefined;
  return {
    reason: "hostPath volumes",
    detail: `${pluralize("volume", "volumes", names.length)} ${joinQuote(names)}`,
    errors,
  };
}

/** ports[*].hostPort of every container: unset or 0. */
function hostPorts(pod: PodView): CheckFailure | undefined {
  const bad: string[] = [];
  const ports: string[] = [];
  const errors: PssFieldError[] = [];
  visitContainers(pod.spec, (c, path, name) => {
    let valid = true;
    objects(c, "ports").forEach((p, j) => {
      const hostPort = num(p, "hostPort") ?? 0;
      if (hostPort === 0) return;
      valid = false;
      ports.push(String(hostPort));
      errors.push(forbidden(`${path}.ports[${j}].hostPort`, { kind: "int32", value: hostPort }));
    });
    if (!valid) bad.push(name);
  });
  if (bad.length === 0) return undefined;
  const list = sortedSet(ports);
  const detail = `${containers(bad)} ${pluralize("uses", "use", bad.length)} ${pluralize("hostPort", "hostPorts", list.length)} ${list.join(", ")}`;
  return { reason: "hostPort", detail, errors };
}

/** securityContext.privileged of every container: unset or false. */
function privileged(pod: PodView): CheckFailure | undefined {
  const bad: string[] = [];
  const errors: PssFieldError[] = [];
  visitContainers(pod.spec, (c, path, name) => {
    if (flag(obj(c, "securityContext"), "privileged") !== true) return;
    bad.push(name);
    errors.push(forbidden(`${path}.securityContext.privileged`, TRUE));
  });
  if (bad.length === 0) return undefined;
  return { reason: "privileged", detail: `${containers(bad)} must not set securityContext.privileged=true`, errors };
}

/** securityContext.procMount of every container: unset or Default. */
function procMount(pod: PodView): CheckFailure | undefined {
  const bad: string[] = [];
  const types: string[] = [];
  const errors: PssFieldError[] = [];
  visitContainers(pod.spec, (c, path, name) => {
    const value = text(obj(c, "securityContext"), "procMount");
    if (value === undefined || value === "Default") return;
    bad.push(name);
    types.push(value);
    errors.push(forbidden(`${path}.securityContext.procMount`, str(value)));
  });
  if (bad.length === 0) return undefined;
  return {
    reason: "procMount",
    detail: `${containers(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`,
    errors,
  };
}

/** securityContext.windowsOptions.hostProcess of the pod and every container: unset or false. */
function windowsHostProcess(pod: PodView): CheckFailure | undefined {
  const hostProcess = (sc: ReturnType<typeof obj>): boolean => flag(obj(sc, "windowsOptions"), "hostProcess") === true;
  const setters: string[] = [];
  const errors: PssFieldError[] = [];
  if (hostProcess(obj(pod.spec, "securityContext"))) {
    setters.push("pod");
    errors.push(forbidden("spec.securityContext.windowsOptions.hostProcess", TRUE));
  }
  const bad: string[] = [];
  visitContainers(pod.spec, (c, path, name) => {
    if (!hostProcess(obj(c, "securityContext"))) return;
    bad.push(name);
    errors.push(forbidden(`${path}.securityContext.windowsOptions.hostProcess`, TRUE));
  });
  if (bad.length > 0) setters.push(containers(bad));
  if (setters.length === 0) return undefined;
  return {
    reason: "hostProcess",
    detail: `${setters.join(" and ")} must not set securityContext.windowsOptions.hostProcess=true`,
    errors,
  };
}

const BASELINE_CAPABILITIES = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);

/** securityContext.capabilities.add of every container: only the default set. */
function capabilitiesBaseline(pod: PodView): CheckFailure | undefined {
  const bad: string[] = [];
  const all: string[] = [];
  const errors: PssFieldError[] = [];
  visitContainers(pod.spec, (c, path, name) => {
    const caps = obj(obj(c, "securityContext"), "capabilities");
    if (caps === undefined) return;
    const extra = texts(caps, "add").filter((cap) => !BASELINE_CAPABILITIES.has(cap));
    if (extra.length === 0) return;
    bad.push(name);
    all.push(...extra);
    errors.push(forbidden(`${path}.securityContext.capabilities.add`, strings(sortedSet(extra))));
  });
  if (bad.length === 0) return undefined;
  const detail = `${containers(bad)} must not include ${joinQuote(sortedSet(all))} in securityContext.capabilities.add`;
  return { reason: "non-default capabilities", detail, errors };
}

export const HOST_CHECKS: readonly CheckDefinition[] = [
  { id: "capabilities_baseline", level: "baseline", versions: [{ minor: 0, run: capabilitiesBaseline }] },
  { id: "hostNamespaces", level: "baseline", versions: [{ minor: 0, run: hostNamespaces }] },
  { id: "hostPathVolumes", level: "baseline", versions: [{ minor: 0, run: hostPathVolumes }] },
  { id: "hostPorts", level: "baseline", versions: [{ minor: 0, run: hostPorts }] },
  { id: "privileged", level: "baseline", versions: [{ minor: 0, run: privileged }] },
  { id: "procMount", level: "baseline", versions: [{ minor: 0, run: procMount }] },
  { id: "windowsHostProcess", level: "baseline", versions: [{ minor: 0, run: windowsHostProcess }] },
];
