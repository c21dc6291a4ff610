/**
 * The policies.kyverno.io PolicyExceptions for a cleanup component that runs in a process of its
 * own (no policy set is loaded there: no-policy-source.ts). A DeletingPolicy keeps what one excepts,
 * so the process watches them itself, compiled as the policy source compiles them and within
 * `--exception-namespace`. Until they have listed the cleanup controller does not act (`listed`),
 * so a deletion never runs ahead of the exception that forbids it; a CRD that is not installed
 * counts as listed (no such exception can exist).
 */
import type { AnyCompiledException, Engine, Random } from "../../engine/index.js";
import { CEL_GROUP, CEL_STORAGE_VERSION } from "../../kube/cel-policy-kinds.js";
import { Informer } from "../../kube/informer.js";
import type { KubeClient } from "../../kube/kube-client.js";
import { notInstalled } from "../../kube/policy-informers.js";
import { ClusterObjectCompiler, exceptionLabel } from "../policy-source/cluster-object-compiler.js";
import { exceptionIgnoredBecause, type ExceptionScope } from "../policy-source/exception-scope.js";

interface CleanupExceptionsOptions {
  readonly client: KubeClient;
  readonly engine: Engine;
  readonly scope: ExceptionScope;
  readonly random: Random;
  readonly onLog: (level: "info" | "warn" | "error", message: string, fields: Record<string, unknown>) => void;
}

interface CleanupExceptions {
  /** The exceptions in force now (valid, within the scope). */
  current(): readonly AnyCompiledException[];
  /** Whether the watch has listed (or the CRD is not installed). */
  listed(): boolean;
  close(): void;
}

export function watchCleanupExceptions(o: CleanupExceptionsOptions): CleanupExceptions {
  const informer = new Informer({
    client: o.client,
    gvr: { group: CEL_GROUP, version: CEL_STORAGE_VERSION, resource: "policyexceptions" },
    budgetBytes: 16 * 1024 * 1024,
    random: o.random,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms).unref()),
    onLog: (level, message, fields) => o.onLog(level, `cleanup exceptions: ${message}`, fields),
  });
  informer.start();
  const compiler = new ClusterObjectCompiler(o.engine);
  const logged = new Map<string, string>();
  return {
    listed: () => informer.health().ok || notInstalled(informer.lastFailure),
    current: () => {
      if (!informer.health().ok) return [];
      const seen = new Set<string>();
      const out: AnyCompiledException[] = [];
      for (const obj of informer.list()) {
        const namespace = obj.metadata?.namespace ?? "";
        if (exceptionIgnoredBecause(o.scope, namespace) !== undefined) continue;
        const c = compiler.exception(obj, CEL_GROUP, seen);
        if (c.value !== undefined) out.push(c.value);
        else {
          const label = exceptionLabel(CEL_GROUP, namespace, obj.metadata?.name ?? "");
          if (logged.get(label) !== c.fingerprint) {
            logged.set(label, c.fingerprint);
            o.onLog("error", "PolicyException not honoured: it is invalid", { exception: label, problems: c.problems });
          }
        }
      }
      compiler.forgetUnseen(seen);
      return out;
    },
    close: () => informer.stop(),
  };
}
