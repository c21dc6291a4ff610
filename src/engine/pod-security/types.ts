/** Shapes of Kyverno's `validate.podSecurity` (Pod Security Standards) once compiled and evaluated. */
import type { JsonObject } from "../api/json.js";
import type { ScheduledCheck } from "./evaluate.js";

export type PssLevel = "privileged" | "baseline" | "restricted";

/**
 * One `exclude[]` entry of a rule, or one `spec.podSecurity[]` entry of a PolicyException
 * (structurally the same as the exceptions module's `PodSecurityExclusion`).
 */
export interface PodSecurityExclude {
  readonly controlName: string;
  /** Image wildcards (`*`, `?`): the exclusion applies to the containers whose image matches. */
  readonly images?: readonly string[];
  /** A restricted field such as `spec.containers[*].securityContext.capabilities.add`. */
  readonly restrictedField?: string;
  /** Wildcards every forbidden value of `restrictedField` must match for the exclusion to apply. */
  readonly values?: readonly string[];
}

/** `latest`, or the minor of a pinned `v1.<minor>`. */
export type PssVersion = "latest" | number;

export interface CompiledPodSecurity {
  readonly level: PssLevel;
  /** The version as written in the rule ("" when absent); Kyverno prints it as is. */
  readonly versionText: string;
  readonly version: PssVersion;
  readonly exclude: readonly PodSecurityExclude[];
  /** The check versions this level and version run, in check order (scheduled at compile time). */
  readonly checks: readonly ScheduledCheck[];
}

/**
 * A forbidden value as the Go check stored it: `""` means none (Go's empty-string BadValue),
 * `int32` marks a Go int32 (printed, but not usable in `exclude.values`).
 */
export type PssBadValue =
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "bool"; readonly value: boolean }
  | { readonly kind: "int"; readonly value: number }
  | { readonly kind: "int32"; readonly value: number }
  | { readonly kind: "strings"; readonly value: readonly string[] };

export interface PssFieldError {
  readonly type: "Forbidden" | "Required";
  /** Field path, e.g. `spec.containers[0].securityContext.privileged` (`spec.template.spec…` for controllers). */
  readonly field: string;
  readonly badValue: PssBadValue;
}

/** One failing Pod Security Standards check. */
export interface PssCheck {
  /** The pod-security-admission check id, e.g. `capabilities_restricted`. */
  readonly id: string;
  /** The PSS control name, e.g. `Capabilities` ("" when Kyverno has none). */
  readonly control: string;
  /** The upstream ForbiddenReason, e.g. `unrestricted capabilities`. */
  readonly reason: string;
  /** The upstream ForbiddenDetail, e.g. `container "app" must set securityContext.capabilities.drop=["ALL"]`. */
  readonly detail: string;
  readonly errors: readonly PssFieldError[];
  /** Images of the containers named in `detail` (Kyverno's report `controlsJSON`), when any. */
  readonly images?: readonly string[];
}

export interface PodSecurityOutcome {
  /** True when no check is left failing. */
  readonly allowed: boolean;
  /** The checks left failing, with field paths as Kyverno reports them. Empty when allowed. */
  readonly checks: readonly PssCheck[];
  /**
   * True when checks failed after the rule's own excludes and `extraExcludes` (PolicyException
   * entries) removed them all: Kyverno then skips the rule "due to policy exceptions".
   */
  readonly exemptedByExtra: boolean;
  /** Set when the resource is not a Pod, pod controller or CronJob (Kyverno returns an error result). */
  readonly error?: string;
}

/** A pod as the checks see it: metadata and spec of a Pod or of a controller's template. */
export interface PodView {
  readonly name: string;
  readonly namespace: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly spec: JsonObject;
}
