/**
 * Restricted checks: privilege escalation, capabilities, volume types, running as non-root (and
 * not as user 0), and seccomp. From v1.25 Windows pods (spec.os.name: windows) are exempt from
 * privilege escalation, capabilities and seccomp.
 */
import {
  FALSE,
  forbidden,
  required,
  str,
  strings,
  TRUE,
  type CheckDefinition,
  type CheckFailure,
  type CheckFn,
} from "./check-types.js";
import { validSeccompType } from "./checks-baseline-profiles.js";
import { profileTypes } from "./profile-types.js";
import { containers, joinQuote, pluralize, sortedSet } from "./go-format.js";
import { flag, has, isWindowsPod, num, obj, objects, text, texts, visitContainers } from "./read.js";
import type { PodView, PssFieldError } from "./types.js";

const exemptWindows =
  (run: CheckFn): CheckFn =>
  (pod) =>
    isWindowsPod(pod.spec) ? undefined : run(pod);

/** securityContext.allowPrivilegeEscalation of every container: false. */
function allowPrivilegeEscalation(pod: PodView): CheckFailure | undefined {
  const bad: string[] = [];
  const errors: PssFieldError[] = [];
  visitContainers(pod.spec, (c, path, name) => {
    const context = obj(c, "securityContext");
    const value = flag(context, "allowPrivilegeEscalation");
    if (value === false) return;
    bad.push(name);
    const field = `${path}.securityContext.allowPrivilegeEscalation`;
    // Kyverno's pod-security-admission fork: no securityContext is Required; one without the field is Forbidden "nil".
    errors.push(context === undefined ? required(field) : forbidden(field, value === undefined ? str("nil") : TRUE));
  });
  if (bad.length === 0) return undefined;
  return {
    reason: "allowPrivilegeEscalation != false",
    detail: `${containers(bad)} must set securityContext.allowPrivilegeEscalation=false`,
    errors,
  };
}

/** Every container drops ALL capabilities and adds back at most NET_BIND_SERVICE. */
function capabilitiesRestricted(pod: PodView): CheckFailure | undefined {
  const missingDrop: string[] = [];
  const adding: string[] = [];
  const forbiddenCaps: string[] = [];
  const dropErrors: PssFieldError[] = [];
  const addErrors: PssFieldError[] = [];
  visitContainers(pod.spec, (c, path, name) => {
    const field = `${path}.securityContext.capabilities`;
    const caps = obj(obj(c, "securityContext"), "capabilities");
    const drop = texts(caps, "drop");
    if (caps === undefined || !drop.includes("ALL")) {
      missingDrop.push(name);
      dropErrors.push(drop.length === 0 ? required(`${field}.drop`) : forbidden(`${field}.drop`, strings(drop)));
    }
    if (caps === undefined) return;
    const extra = texts(caps, "add").filter((cap) => cap !== "NET_BIND_SERVICE");
    if (extra.length === 0) return;
    adding.push(name);
    forbiddenCaps.push(...extra);
    addErrors.push(forbidden(`${field}.add`, strings(sortedSet(extra))));
  });
  const details: string[] = [];
  if (missingDrop.length > 0)
    details.push(`${containers(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length > 0)
    details.push(
      `${containers(adding)} must not include ${joinQuote(sortedSet(forbiddenCaps))} in securityContext.capabilities.add`,
    );
  if (details.length === 0) return undefined;
  return { reason: "unrestricted capabilities", detail: details.join("; "), errors: [...dropErrors, ...addErrors] };
}

const ALLOWED_VOLUME_SOURCES = [
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "image",
  "persistentVolumeClaim",
  "projected",
  "secret",
];
const RESTRICTED_VOLUME_SOURCES = [
  "hostPath",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "nfs",
  "iscsi",
  "glusterfs",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "fc",
  "azureFile",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "storageos",
];

/** spec.volumes[*]: only configMap, csi, downwardAPI, emptyDir, ephemeral, image, persistentVolumeClaim, projected, secret. */
function restrictedVolumes(pod: PodView): CheckFailure | undefined {
  const names: string[] = [];
  const types: string[] = [];
  const errors: PssFieldError[] = [];
  objects(pod.spec, "volumes").forEach((v, i) => {
    if (ALLOWED_VOLUME_SOURCES.some((s) => has(v, s))) return;
    const type = RESTRICTED_VOLUME_SOURCES.find((s) => has(v, s)) ?? "unknown";
    names.push(text(v, "name") ?? "");
    types.push(type);
    errors.push(forbidden(`spec.volumes[${i}].${type}`));
  });
  if (names.length === 0) return undefined;
  const list = sortedSet(types);
  const detail = `${pluralize("volume", "volumes", names.length)} ${joinQuote(names)} ${pluralize("uses", "use", names.length)} ${pluralize("restricted volume type", "restricted volume types", list.length)} ${joinQuote(list)}`;
  return { reason: "restricted volume types", detail, errors };
}

/** runAsNonRoot: true on the pod or on every container, and false nowhere. */
function runAsNonRoot(pod: PodView): CheckFailure | undefined {
  const setters: string[] = [];
  const explicitErrors: PssFieldError[] = [];
  const podValue = flag(obj(pod.spec, "securityContext"), "runAsNonRoot");
  if (podValue === false) {
    setters.push("pod");
    explicitErrors.push(forbidden("spec.securityContext.runAsNonRoot", FALSE));
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  const implicitErrors: PssFieldError[] = [];
  visitContainers(pod.spec, (c, path, name) => {
    const value = flag(obj(c, "securityContext"), "runAsNonRoot");
    const field = `${path}.securityContext.runAsNonRoot`;
    if (value === false) {
      explicit.push(name);
      explicitErrors.push(forbidden(field, FALSE));
    } else if (value === undefined && podValue !== true) {
      implicit.push(name);
      implicitErrors.push(required(field));
    }
  });
  if (explicit.length > 0) setters.push(containers(explicit));
  const details: string[] = [];
  if (setters.length > 0) details.push(`${setters.join(" and ")} must not set securityContext.runAsNonRoot=false`);
  if (implicit.length > 0) details.push(`pod or ${containers(implicit)} must set securityContext.runAsNonRoot=true`);
  if (details.length === 0) return undefined;
  return { reason: "runAsNonRoot != true", detail: details.join("\n"), errors: [...explicitErrors, ...implicitErrors] };
}

/** runAsUser is not 0 on the pod or on any container. */
function runAsUser(pod: PodView): CheckFailure | undefined {
  const setters: string[] = [];
  const errors: PssFieldError[] = [];
  const zero = { kind: "int", value: 0 } as const;
  if (num(obj(pod.spec, "securityContext"), "runAsUser") === 0) {
    setters.push("pod");
    errors.push(forbidden("spec.securityContext.runAsUser", zero));
  }
  const bad: string[] = [];
  visitContainers(pod.spec, (c, path, name) => {
    if (num(obj(c, "securityContext"), "runAsUser") !== 0) return;
    bad.push(name);
    errors.push(forbidden(`${path}.securityContext.runAsUser`, zero));
  });
  if (bad.length > 0) setters.push(containers(bad));
  if (setters.length === 0) return undefined;
  return { reason: "runAsUser=0", detail: `${setters.join(" and ")} must not set runAsUser=0`, errors };
}

/** seccompProfile.type is RuntimeDefault or Localhost on the pod or on every container. */
function seccompRestricted(pod: PodView): CheckFailure | undefined {
  const { setters, badValues, errors, podAllowed, unset } = profileTypes(pod, "seccompProfile", validSeccompType);
  // Containers without a profile inherit the pod's; without an allowed pod profile they need their own.
  const implicit = podAllowed ? [] : unset;
  if (setters.length > 0) {
    const detail = `${setters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}`;
    return { reason: "seccompProfile", detail, errors };
  }
  if (implicit.length === 0) return undefined;
  const detail = `pod or ${containers(implicit.map((c) => c.name))} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`;
  return { reason: "seccompProfile", detail, errors: implicit.map((c) => required(c.field)) };
}

export const RESTRICTED_CHECKS: readonly CheckDefinition[] = [
  {
    id: "allowPrivilegeEscalation",
    level: "restricted",
    versions: [
      { minor: 8, run: allowPrivilegeEscalation },
      { minor: 25, run: exemptWindows(allowPrivilegeEscalation) },
    ],
  },
  {
    id: "capabilities_restricted",
    level: "restricted",
    versions: [
      { minor: 22, run: capabilitiesRestricted },
      { minor: 25, run: exemptWindows(capabilitiesRestricted) },
    ],
  },
  { id: "restrictedVolumes", level: "restricted", versions: [{ minor: 0, run: restrictedVolumes }] },
  { id: "runAsNonRoot", level: "restricted", versions: [{ minor: 0, run: runAsNonRoot }] },
  { id: "runAsUser", level: "restricted", versions: [{ minor: 23, run: runAsUser }] },
  {
    id: "seccompProfile_restricted",
    level: "restricted",
    versions: [
      { minor: 19, run: seccompRestricted },
      { minor: 25, run: exemptWindows(seccompRestricted) },
    ],
  },
];
