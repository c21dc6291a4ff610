/**
 * `bylaw serve --register`: Bylaw writes its own webhook configurations (src/server/registration)
 * for the loaded policy set, and again whenever the set or the serving CA changes. In the cluster the
 * webhooks name the Service (--service-name/--service-namespace/--service-port); outside it,
 * --server-url (Kyverno's --serverIP). Only the leader writes: until leader election lands, every
 * replica counts as leader (`isLeader` defaults to true).
 *
 * Kinds the built-in table does not know (custom resources) are registered as discovery serves
 * them (kube/discovered-kinds.ts): discovery is read before each sync a policy-set change asks for,
 * and again every `discoveryIntervalMs` (default 30 s); when what it serves has changed (a CRD came
 * or went), the configurations are rebuilt. A kind no discovery serves stays registered wide for its
 * group, and the log says so.
 *
 * `--kyverno-webhook-names`: the configurations and webhooks get Kyverno's names
 * (server/registration/webhook-names.ts); before it starts, Bylaw checks that none of the
 * configurations it would write by those names is someone else's (foreign-configurations.ts).
 */
import { resolveConnection } from "../../kube/kubeconfig.js";
import { DiscoveredKinds } from "../../kube/discovered-kinds.js";
import { canAccess } from "../../kube/access-review.js";
import type { ClusterPolicyChecks } from "../registration/cluster-policy-checks.js";
import { KubeClient } from "../../kube/kube-client.js";
import { ServerSideApply } from "../../kube/server-side-apply.js";
import type { CompiledPolicy } from "../../engine/index.js";
import { buildConfigurations, policyIdOf } from "../registration/build-configurations.js";
import { PolicyRules } from "../registration/policy-rules.js";
import { type BuildRequest, Registrar, type RegistrationLog } from "../../controllers/registration/registrar.js";
import type { RegistrationStates } from "../../controllers/registration/registration-states.js";
import type { Endpoint, NameScheme, WebhookConfiguration } from "../../controllers/registration/types.js";
import { configurationNames } from "../registration/webhook-names.js";
import { foreignConfigurationProblem } from "../registration/foreign-configurations.js";
import { KubeError } from "../../kube/kube-client.js";
import type { TimeoutGroups } from "../admission/webhook-groups.js";
import type { PolicySource } from "../types.js";
import type { ServingTls } from "./tls-setup.js";

/** Where and how to register, from the flags (cli/commands/serve/registration-flags.ts). */
export interface RegistrationPlan {
  readonly endpoint: Endpoint;
  readonly ownNamespace: string;
  readonly kubeconfig: string | undefined;
  readonly names: NameScheme;
}

interface StartRegistration {
  readonly plan: RegistrationPlan;
  /** --background-service-account-name: the background controller's user for the permission checks (default: deploy/'s ServiceAccount in Bylaw's namespace). */
  readonly backgroundUser?: string;
  readonly source: PolicySource;
  readonly groups: TimeoutGroups;
  readonly tls: ServingTls;
  readonly onLog: RegistrationLog;
  /** Whether this replica may write shared objects (leader election); default: always. */
  readonly isLeader?: () => boolean;
  /** Changes of leadership (the elector's onChange): a new leader registers at once. */
  readonly onLeaderChange?: (listener: (leader: boolean) => void) => () => void;
  /** Where registration publishes which policies the API server sends to Bylaw (policy status reads it). */
  readonly states?: RegistrationStates;
  /** How often discovery is read again for kinds that appear later (CRDs); default 30 s. */
  readonly discoveryIntervalMs?: number;
}

const DISCOVERY_INTERVAL_MS = 30_000;

/** The loaded policies without the refused ones, with a candidate (policy webhook) in place of its namesake. */
function policiesToRegister(policies: readonly CompiledPolicy[], request: BuildRequest | undefined): CompiledPolicy[] {
  const without = request?.without ?? new Set<string>();
  const candidate = request?.candidate;
  const replaced = candidate === undefined ? undefined : policyIdOf(candidate);
  const kept = policies.filter((p) => {
    const id = policyIdOf(p);
    return !without.has(id) && id !== replaced;
  });
  return candidate === undefined ? kept : [...kept, candidate];
}

const PATHS: Readonly<Record<WebhookConfiguration["kind"], string>> = {
  ValidatingWebhookConfiguration: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/",
  MutatingWebhookConfiguration: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/",
};

/** The ServiceAccount deploy/ ships for the background controller, which runs generate and mutate-existing rules. */
const BACKGROUND_SERVICE_ACCOUNT = "bylaw-background-controller";

export interface Registration {
  readonly registrar: Registrar;
  /** With Kyverno's names: why Bylaw must not start (a configuration of that name is not Bylaw's); undefined when it may. */
  foreignConfigurations(): Promise<string | undefined>;
  /** What the policy webhook asks the API server about a policy being applied (its kinds, generate scope and permissions). */
  readonly policyChecks: ClusterPolicyChecks;
  /** Writes the configurations now and whenever the set or the CA changes: call once the server answers. */
  start(): void;
  close(): void;
}

/** Sets up registration (the API connection is checked now, so a bad one is a flag error). */
export function setUpRegistration(
  o: StartRegistration,
): { ok: true; value: Registration } | { ok: false; error: string } {
  const conn = resolveConnection({
    ...(o.plan.kubeconfig !== undefined ? { kubeconfigFlag: o.plan.kubeconfig } : {}),
    env: process.env,
    now: () => Date.now(),
  });
  if (!conn.ok) return { ok: false, error: `--register: ${conn.error.message}` };
  const writer = new ServerSideApply(conn.value, { fieldManager: "bylaw" });
  const client = new KubeClient({ connection: conn.value });
  const kinds = new DiscoveredKinds(client);
  // Each policy's webhook rules, kept while discovery serves the same kinds: a sync works out only the policies that changed.
  const rules = new PolicyRules(
    (s) => kinds.resolve(s),
    () => kinds.version,
  );
  const registrar = new Registrar({
    build: (request) => {
      const snapshot = o.source.current();
      if (snapshot.generation === 0) return undefined;
      return buildConfigurations(
        policiesToRegister(snapshot.policies, request),
        o.groups,
        { endpoint: o.plan.endpoint, caPem: o.tls.caPem(), ownNamespace: o.plan.ownNamespace, names: o.plan.names },
        rules,
      );
    },
    apply: (c, options) => writer.apply(PATHS[c.kind] + encodeURIComponent(c.metadata.name), c, options),
    read: (c) => client.getJson(PATHS[c.kind] + encodeURIComponent(c.metadata.name)),
    ...(o.states !== undefined ? { states: o.states } : {}),
    isLeader: o.isLeader ?? (() => true),
    onLog: o.onLog,
    retryDelayMs: (failures) => Math.min(300_000, 1000 * 2 ** Math.min(failures - 1, 9)),
  });
  let unsubscribe: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const warned = new Set<string>();
  /** Reads discovery again; a failure keeps the last one read (the log says so, once per warning). */
  const rediscover = async (): Promise<boolean> => {
    try {
      const r = await kinds.refresh();
      for (const w of r.warnings) if (!warned.has(w)) o.onLog("warn", `bylaw serve: ${w}`, {});
      warned.clear();
      for (const w of r.warnings) warned.add(w);
      return r.changed;
    } catch (e) {
      o.onLog(
        "warn",
        `bylaw serve: could not read the API server's discovery; kinds it has not listed stay registered wide: ${(e as Error).message}`,
        {},
      );
      return false;
    }
  };
  const sync = oneAtATime(async () => {
    await rediscover();
    await registrar.request();
  });
  return {
    ok: true,
    value: {
      registrar,
      foreignConfigurations: () => (o.plan.names === "kyverno" ? foreignOf(client) : Promise.resolve(undefined)),
      policyChecks: {
        resolve: (s) => kinds.resolve(s),
        refresh: async () => void (await rediscover()),
        canI: (access) => canAccess(client, access),
        user: o.backgroundUser ?? `system:serviceaccount:${o.plan.ownNamespace}:${BACKGROUND_SERVICE_ACCOUNT}`,
      },
      start: () => {
        unsubscribe = o.source.onChange((event) => {
          if (event.kind === "loaded") void sync.run();
        });
        o.tls.onReload(() => void registrar.request());
        if (o.onLeaderChange !== undefined) registrar.followLeadership(o.onLeaderChange);
        void sync.run();
        timer = setInterval(() => {
          if (!(o.isLeader?.() ?? true)) return;
          void rediscover().then((changed) => (changed ? registrar.request() : undefined));
        }, o.discoveryIntervalMs ?? DISCOVERY_INTERVAL_MS);
        timer.unref();
      },
      close: () => {
        sync.close();
        unsubscribe?.();
        clearInterval(timer);
        registrar.close();
        writer.close();
        client.close();
      },
    },
  };
}

/**
 * `work` one run at a time, and one more after it for every call that came meanwhile: 346 policies
 * applied one by one are a few discovery reads and syncs, not 346 queued behind each other. A call
 * resolves once a run that began after it has finished.
 */
function oneAtATime(work: () => Promise<void>): { run(): Promise<void>; close(): void } {
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;
  return {
    run() {
      if (running !== undefined) {
        again = true;
        return running;
      }
      running = (async () => {
        do {
          again = false;
          await work();
        } while (again && !closed);
      })().finally(() => {
        running = undefined;
      });
      return running;
    },
    close: () => void (closed = true),
  };
}

/** The Kyverno-named configurations Bylaw would write that exist and are not its own (foreign-configurations.ts). */
function foreignOf(client: KubeClient): Promise<string | undefined> {
  const names = configurationNames("kyverno");
  return foreignConfigurationProblem(
    [
      { kind: "ValidatingWebhookConfiguration", name: names.policyValidating },
      { kind: "ValidatingWebhookConfiguration", name: names.validating },
      { kind: "MutatingWebhookConfiguration", name: names.mutating },
    ],
    async (kind, name) => {
      try {
        return await client.getJson(PATHS[kind] + encodeURIComponent(name));
      } catch (e) {
        if (e instanceof KubeError && e.status === 404) return undefined;
        throw e;
      }
    },
  );
}
