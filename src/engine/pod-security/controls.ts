/**
 * The checks in pod-security-admission's `DefaultChecks()` order (its check files in name order,
 * which is the order Kyverno reports them in), and Kyverno's mapping between PSS control names
 * (`exclude[].controlName`) and check ids (`pkg/pss/utils/mapping.go`).
 */
import type { CheckDefinition } from "./check-types.js";
import { HOST_CHECKS } from "./checks-baseline-host.js";
import { PROFILE_CHECKS } from "./checks-baseline-profiles.js";
import { RESTRICTED_CHECKS } from "./checks-restricted.js";

const ORDER = [
  "allowPrivilegeEscalation",
  "appArmorProfile",
  "capabilities_baseline",
  "capabilities_restricted",
  "hostNamespaces",
  "hostPathVolumes",
  "hostPorts",
  "hostProbesAndHostLifecycle",
  "privileged",
  "procMount",
  "restrictedVolumes",
  "runAsNonRoot",
  "runAsUser",
  "seLinuxOptions",
  "seccompProfile_baseline",
  "seccompProfile_restricted",
  "sysctls",
  "windowsHostProcess",
];

const ALL: readonly CheckDefinition[] = [...HOST_CHECKS, ...PROFILE_CHECKS, ...RESTRICTED_CHECKS];

export const CHECKS: readonly CheckDefinition[] = ORDER.map((id) => {
  const check = ALL.find((c) => c.id === id);
  if (check === undefined) throw new Error(`pod-security: no check ${id}`);
  return check;
});

/** Control name → check ids. */
export const CONTROL_CHECK_IDS: Readonly<Record<string, readonly string[]>> = {
  Capabilities: ["capabilities_baseline", "capabilities_restricted"],
  Seccomp: ["seccompProfile_baseline", "seccompProfile_restricted"],
  "Privileged Containers": ["privileged"],
  "Host Ports": ["hostPorts"],
  "/proc Mount Type": ["procMount"],
  HostProcess: ["windowsHostProcess"],
  SELinux: ["seLinuxOptions"],
  "Host Namespaces": ["hostNamespaces"],
  "HostPath Volumes": ["hostPathVolumes"],
  Sysctls: ["sysctls"],
  AppArmor: ["appArmorProfile"],
  "Privilege Escalation": ["allowPrivilegeEscalation"],
  "Running as Non-root": ["runAsNonRoot"],
  "Running as Non-root user": ["runAsUser"],
  "Volume Types": ["restrictedVolumes"],
};

/** The `controlName` values Kyverno accepts (its CRD enum), in the enum's order. */
export const CONTROL_NAMES: readonly string[] = [
  "HostProcess",
  "Host Namespaces",
  "Privileged Containers",
  "Capabilities",
  "HostPath Volumes",
  "Host Ports",
  "AppArmor",
  "SELinux",
  "/proc Mount Type",
  "Seccomp",
  "Sysctls",
  "Volume Types",
  "Privilege Escalation",
  "Running as Non-root",
  "Running as Non-root user",
];

/** Controls that only exist in the restricted profile (Seccomp and Capabilities exist in both). */
export const RESTRICTED_ONLY_CONTROLS: readonly string[] = [
  "Volume Types",
  "Privilege Escalation",
  "Running as Non-root",
  "Running as Non-root user",
];

/** Controls that must name images in an exclusion. */
export const CONTAINER_LEVEL_CONTROLS: readonly string[] = [
  "Capabilities",
  "Privileged Containers",
  "Host Ports",
  "/proc Mount Type",
  "Privilege Escalation",
];

/** Controls whose exclusions must not name images. */
export const POD_LEVEL_CONTROLS: readonly string[] = [
  "Host Namespaces",
  "HostPath Volumes",
  "Sysctls",
  "AppArmor",
  "Volume Types",
];

/** Each check id's control: the first control that lists it, as the lookup below read them in order. */
const CONTROL_OF_CHECK: ReadonlyMap<string, string> = (() => {
  const out = new Map<string, string>([["hostProbesAndHostLifecycle", "Host Probes / Lifecycle Hooks"]]);
  for (const [name, ids] of Object.entries(CONTROL_CHECK_IDS))
    for (const id of ids) if (!out.has(id)) out.set(id, name);
  return out;
})();

/** The control name of a check id, for reports (`PSSControlIDToName`). */
export function controlNameOf(checkId: string): string {
  return CONTROL_OF_CHECK.get(checkId) ?? "";
}
