import type { JsonObject, JsonValue } from "../api/json.js";
import type { GroupVersionKind, Operation, RequestUserInfo, Resource } from "../api/resource.js";
import type { RuleResult } from "../api/rule-result.js";
import type { FunctionContext, JmesPathEngine } from "../jmespath/types.js";
import type { AnyCompiledException } from "../exceptions/cel/index.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { EnginePorts } from "../ports.js";

/** What the engine is built from: an interpreter with Kyverno's functions, and the ports. */
export interface EngineEnv {
  readonly jmespath: JmesPathEngine;
  readonly ports: EnginePorts;
  /** What JMESPath functions reach (the ports), made once per engine. */
  readonly fnctx: FunctionContext;
}

export interface EngineRequest {
  readonly resource: Resource;
  readonly oldResource?: Resource;
  readonly operation: Operation;
  readonly userInfo?: RequestUserInfo;
  readonly subresource?: string;
  /**
   * The kind rules and exceptions match the request as, when it is not the object's own: a request on
   * a subresource is matched by its parent's kind (`Deployment` with subresource `scale`) while the
   * object stays what it is (a `Scale`), as Kyverno's CLI does with a values file's `subresources`.
   */
  readonly matchKind?: GroupVersionKind;
  /** Labels of the resource's namespace, for namespaceSelector. */
  readonly namespaceLabels: Readonly<Record<string, string>>;
  /**
   * The resource's Namespace object when the caller has it whole (a values file's `namespaces:`
   * entry): CEL's `namespaceObject`, annotations included. Absent: CEL sees a Namespace with the
   * name and `namespaceLabels`. Null: the caller has none to give (Kyverno's CLI, whose
   * policies.kyverno.io kinds read the Namespace from the values file alone): those kinds see null,
   * a validate.cel rule still sees the Namespace built from the name and labels.
   */
  readonly namespaceObject?: Resource | null;
  /** Variables layered on the context before any rule runs, by dotted name (CLI globalValues, per-resource values). */
  readonly variables?: Readonly<Record<string, JsonValue>>;
  /**
   * Per-rule variables (CLI `policies[].rules[].values`), added before the rule's context entries load.
   * Looked up by the evaluated rule's name (`autogen-` variants included: the caller's lookup decides).
   */
  readonly ruleVariables?: (policy: string, rule: string) => Readonly<Record<string, JsonValue>> | undefined;
  /**
   * Per-rule foreach values (CLI `policies[].rules[].foreachValues`): in each foreach element the
   * key is set to the list's value at the element's index, as Kyverno's CLI does.
   */
  readonly ruleForeachValues?: (
    policy: string,
    rule: string,
  ) => Readonly<Record<string, readonly JsonValue[]>> | undefined;
  /** True in background scans: user-info in match is ignored. */
  readonly background?: boolean;
  /**
   * PolicyExceptions to honour for this request: kyverno.io/v2 ones for ClusterPolicy/Policy rules
   * (engine/exceptions `matchExceptions`), policies.kyverno.io ones for the CEL kinds they name
   * (engine/exceptions/cel).
   */
  readonly exceptions?: readonly AnyCompiledException[];
  /** Kyverno's `--exceptionNamespace`: when set, only exceptions in these namespaces are honoured. */
  readonly exceptionNamespaces?: readonly string[];
}

export interface PolicyResponse {
  readonly policy: CompiledPolicy;
  /** The resource the rules saw: the old object for DELETE. */
  readonly resource: Resource;
  /** One entry per rule that matched the resource; unmatched rules leave no entry. */
  readonly rules: readonly RuleResult[];
  /** Mutate: the resource after this policy's patches (the input itself when nothing changed). */
  readonly patchedResource?: Resource;
  /**
   * Mutate: how many times Kyverno's CLI prints the resource under this policy ("policy NAME applied
   * to …"), when that is not once for a response with results: a MutatingPolicy's count (its bodies
   * that matched and those it prints unmatched, cel/mutating-policy/evaluate.ts).
   */
  readonly cliPrints?: number;
}

/** One JSON payload (`apply --json`, a test's jsonPayloads) for validateJson. */
export interface JsonPayloadRequest {
  readonly payload: JsonObject;
  /** PolicyExceptions to honour (only policies.kyverno.io ones can name a JSON-mode or DeletingPolicy). */
  readonly exceptions?: readonly AnyCompiledException[];
  /** Kyverno's `--exceptionNamespace`: when set, only exceptions in these namespaces are honoured. */
  readonly exceptionNamespaces?: readonly string[];
}
