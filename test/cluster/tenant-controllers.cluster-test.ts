/**
 * Issue 35 done-when 6, the tenant suite extended to Bylaw's controllers, end to end against
 * `scripts/cluster.sh up DIR --with-bylaw` with the background and cleanup components running as
 * deploy/ ships them (each its own process and ServiceAccount, granted ConfigMaps, Secrets and
 * Namespaces cluster-wide by aggregated ClusterRoles, so only Bylaw's own guard stops a tenant). A
 * namespace admin of tenant-a (kubectl --as) tries to make them act outside tenant-a:
 * - what the policy webhook can see (generate into a variable namespace, a cluster-scoped kind,
 *   clone/cloneList from a variable namespace or of a cluster-scoped kind, mutate targets in
 *   tenant-b, kube-system or cluster-scoped): refused at `kubectl apply`, naming the field;
 * - the author (rule 4): a user who may write policies and cleanup policies in tenant-a and nothing
 *   else is refused a generate of ConfigMaps, a mutate of Secrets, a CleanupPolicy over ConfigMaps
 *   and a NamespacedDeletingPolicy over Secrets there (the generate the namespace admin may apply);
 *   the namespace admin is refused a NamespacedGeneratingPolicy and a kind from the trigger (any kind);
 * - what only substitution reveals (foreach generate into the trigger label's namespace, a kind
 *   from a label, foreach clone and cloneList from the label's namespace, mutate targets by
 *   variable namespace or kind): the UpdateRequest fails with the reason, and nothing is read or
 *   written outside tenant-a;
 * - legitimate work beside same-named objects elsewhere: a synchronized generate creates, updates
 *   and deletes only tenant-a's `shared`; a mutate target by selector (no namespace) patches only
 *   tenant-a's objects, from a kyverno.io Policy and from a NamespacedMutatingPolicy with
 *   mutate-existing;
 * - cleanup: a CleanupPolicy over labelled ConfigMaps (no namespace) and a NamespacedDeletingPolicy
 *   over ConfigMaps delete only tenant-a's objects; one over Namespaces is refused (its author may
 *   not delete Namespaces); CleanupPolicies over Namespaces
 *   and naming tenant-b are refused at apply with Kyverno's reasons; a `cleanup.kyverno.io/ttl` label on tenant-a's `canary`
 *   deletes it and not the `canary` elsewhere;
 * - afterwards every canary object in tenant-b and kube-system (and the canary Namespace) has the
 *   resourceVersion it had before, and no canary value is in any response, Event, report or log.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { eventually } from "./cluster-harness.js";
import { canaryLeaks, placesToSearch } from "./canary-leaks.js";
import { startComponent } from "./component-process.js";
import type { ServeProcess } from "./serve-process.js";
import { BUILD_TIMEOUT_MS, tenantKit } from "./tenant-attack.js";
import {
  ANY_KIND_POLICIES,
  ANY_KIND_REASON,
  APPLY_ATTEMPTS,
  AUTHOR_ATTEMPTS,
  AUTHOR_RBAC,
  NAMESPACED_MUTATE_EXISTING,
  CLEANUP_POLICIES,
  CONTROLLER_GRANTS,
  OWN_POLICIES,
  RUNTIME_POLICIES,
  RUNTIME_REASONS,
  TENANT_CLEANUP_RBAC,
} from "./tenant-controller-policies.js";

const kit = tenantKit();
const running: ServeProcess[] = [];
/** Every kubectl output the tenant got: no canary may appear in any. */
const responses: string[] = [];
const canaries = {
  configMapB: `canary-cm-b-${randomBytes(12).toString("hex")}`,
  secretB: `canary-secret-b-${randomBytes(12).toString("hex")}`,
  configMapKs: `canary-cm-ks-${randomBytes(12).toString("hex")}`,
  secretKs: `canary-secret-ks-${randomBytes(12).toString("hex")}`,
};
/** Every label a tenant's selector or condition could pick: the canaries carry them all. */
const BAIT = { canary: "yes", "mutate-me": "yes", "doom-c": "yes", "doom-d": "yes" };
/** The objects outside tenant-a that nothing may touch, as `kind namespace/name`, with their resourceVersion. */
const before0 = new Map<string, string>();

async function asTenant(args: readonly string[], input?: string) {
  const r = await kit.asTenant(args, input);
  responses.push(r.stdout, r.stderr);
  return r;
}

function object(kind: "ConfigMap" | "Secret", name: string, namespace: string, extra: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: "v1", kind, metadata: { name, namespace }, ...extra });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** resourceVersion of every watched object (missing: "gone"). */
async function versions(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const ns of ["tenant-b", "kube-system"]) {
    const list = JSON.parse(await kit.ok(["get", "configmaps,secrets", "-n", ns, "-o", "json"])) as {
      items: { kind: string; metadata: { name: string; resourceVersion: string } }[];
    };
    for (const name of ["canary", "shared"])
      for (const kind of ["ConfigMap", "Secret"]) {
        const found = list.items.find((i) => i.kind === kind && i.metadata.name === name);
        if (kind === "Secret" && name === "shared") continue;
        out.set(`${kind} ${ns}/${name}`, found?.metadata.resourceVersion ?? "gone");
      }
  }
  const ns = await kit
    .current()
    .kubectl(["get", "namespace", "canary-ns", "-o", "jsonpath={.metadata.resourceVersion}"]);
  out.set("Namespace canary-ns", ns.code === 0 ? ns.stdout.trim() : "gone");
  return out;
}

interface UrView {
  readonly spec: { readonly policy: string; readonly resource: { readonly name: string } };
  readonly status?: { readonly state?: string; readonly message?: string };
}

async function updateRequests(): Promise<UrView[]> {
  return (
    JSON.parse(await kit.ok(["get", "updaterequests.kyverno.io", "-n", "bylaw", "-o", "json"])) as { items: UrView[] }
  ).items;
}

/**
 * Creates a trigger for `policy` (as the tenant) until its UpdateRequest fails; its message. A
 * trigger made before the webhook takes the policy's rules brings no work, so it is made again.
 */
async function failedRequest(policy: string, labels: Record<string, string>): Promise<string> {
  return eventually(`the ${policy} UpdateRequest Failed`, 120_000, async () => {
    const name = `${policy}-${Date.now()}`;
    const r = await asTenant(
      ["create", "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name, namespace: "tenant-a", labels: { attack: policy, ...labels } },
      }),
    );
    assert.equal(r.code, 0, `the trigger was refused: ${r.stderr}`);
    for (let i = 0; i < 16; i++) {
      await sleep(500);
      const mine = (await updateRequests()).find(
        (u) => u.spec.policy === `tenant-a/${policy}` && u.spec.resource.name === name,
      );
      if (mine?.status?.state === "Failed") return mine.status.message ?? "";
      if (mine?.status?.state === "Completed") throw new Error(`${policy}: the request Completed`);
    }
    return undefined;
  });
}

/**
 * A failure of `run` carries what decides it: the UpdateRequests in the cluster (state and message),
 * the end of Bylaw's log and of each controller component's.
 */
async function withDiagnostics(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (e) {
    const urs = await updateRequests().then(
      (l) =>
        l.map((u) => `${u.spec.policy} ${u.spec.resource.name}: ${u.status?.state ?? "-"} ${u.status?.message ?? ""}`),
      (err: unknown) => [`(cannot list UpdateRequests: ${String(err)})`],
    );
    const bylawLog = await readFile(join(kit.current().dir, "logs", "bylaw.log"), "utf8").then(
      (t) => t.slice(-6000),
      () => "(no log)",
    );
    const components = running.map((p) => p.output().slice(-4000)).join("\n---\n");
    throw new Error(
      `${e instanceof Error ? e.message : String(e)}\nUpdateRequests:\n${urs.join("\n")}\nBylaw's log:\n${bylawLog}\ncomponents' logs:\n${components}`,
    );
  }
}

async function readyPolicy(kind: string, name: string): Promise<void> {
  await eventually(`${kind} ${name} Ready`, 90_000, async () => {
    const r = await kit.ok([
      "get",
      kind,
      "-n",
      "tenant-a",
      name,
      "-o",
      'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
    ]);
    return r === "True" ? true : undefined;
  });
}

const dataOf = async (kind: string, name: string, namespace: string, path: string): Promise<string | undefined> => {
  const r = await kit.current().kubectl(["get", kind, name, "-n", namespace, "-o", `jsonpath=${path}`]);
  return r.code === 0 ? r.stdout.trim() : undefined;
};

/** Cleanup policies the tenant got stored (the others were refused at apply). */
const storedCleanup: string[] = [];

describe(
  "a tenant cannot make Bylaw's controllers act outside its namespace",
  { timeout: BUILD_TIMEOUT_MS + 15 * 60_000 },
  () => {
    before(async () => {
      await kit.setUp({
        extra: async (k) => {
          await k.ok(["apply", "-f", "-"], TENANT_CLEANUP_RBAC);
          await k.ok(["apply", "-f", "-"], CONTROLLER_GRANTS);
          await k.ok(["apply", "-f", "-"], AUTHOR_RBAC);
          await k.ok(["create", "namespace", "canary-ns"]);
          await k.ok(["label", "namespace", "canary-ns", ...Object.entries(BAIT).map(([l, v]) => `${l}=${v}`)]);
          for (const [ns, cm, secret] of [
            ["tenant-b", canaries.configMapB, canaries.secretB],
            ["kube-system", canaries.configMapKs, canaries.secretKs],
          ] as const) {
            await k.ok(
              ["create", "-f", "-"],
              object("ConfigMap", "canary", ns, {
                metadata: { name: "canary", namespace: ns, labels: BAIT },
                data: { value: cm },
              }),
            );
            await k.ok(
              ["create", "-f", "-"],
              object("Secret", "canary", ns, {
                metadata: { name: "canary", namespace: ns, labels: BAIT },
                stringData: { value: secret },
              }),
            );
            await k.ok(
              ["create", "-f", "-"],
              object("ConfigMap", "shared", ns, {
                metadata: { name: "shared", namespace: ns, labels: BAIT },
                data: { from: "not-yours" },
              }),
            );
          }
        },
      });
      running.push(await startComponent(kit.current(), "background"), await startComponent(kit.current(), "cleanup"));
      // The policy webhook admits cleanup policies once it sees the cleanup component's Lease (polled every 2 s).
      const sweep = CLEANUP_POLICIES[0];
      assert.ok(sweep !== undefined);
      await eventually("the policy webhook to see the cleanup component", 90_000, async () => {
        const r = await kit.asTenant(["apply", "--dry-run=server", "-f", "-"], sweep.policy);
        return /no cleanup controller yet/.test(r.stderr) ? undefined : true;
      });
      for (const [k, v] of await versions()) before0.set(k, v);
    });

    after(async () => {
      for (const p of running) await p.stop();
      await kit.tearDown();
    });

    test("cleanup policies go in first (their schedule runs while the rest does): each stored or refused naming the field", async () => {
      // tenant-a's own objects the cleanup policies must delete, and one the ttl label deletes.
      await kit.ok(
        ["create", "-f", "-"],
        object("ConfigMap", "doomed-c", "tenant-a", {
          metadata: { name: "doomed-c", namespace: "tenant-a", labels: { "doom-c": "yes" } },
        }),
      );
      await kit.ok(
        ["create", "-f", "-"],
        object("ConfigMap", "doomed-d", "tenant-a", {
          metadata: { name: "doomed-d", namespace: "tenant-a", labels: { "doom-d": "yes" } },
        }),
      );
      const refusals: string[] = [];
      for (const c of CLEANUP_POLICIES) {
        const r = await asTenant(["apply", "-f", "-"], c.policy);
        if (r.code === 0) storedCleanup.push(`${c.kind}/${c.name}`);
        else {
          refusals.push(`${c.name}: ${r.stderr.trim()}`);
          assert.match(r.stderr, /denied the request/, `${c.name} refused for another reason: ${r.stderr}`);
          assert.match(r.stderr, /spec\.|namespace/, `${c.name}: the refusal names no field: ${r.stderr}`);
        }
      }
      console.log(
        `# cleanup policies stored: ${storedCleanup.join(", ") || "none"}; refused: ${refusals.join(" | ") || "none"}`,
      );
      assert.ok(storedCleanup.includes("cleanuppolicy/sweep-configmaps"), "the tenant's own CleanupPolicy is stored");
      assert.ok(
        storedCleanup.includes("namespaceddeletingpolicy/delete-configmaps"),
        "the tenant's own NamespacedDeletingPolicy is stored",
      );
      // Rule 4: the cleanup controller would delete for the author what the author may not.
      assert.ok(
        refusals.some(
          (r) =>
            r.startsWith("delete-namespaces: ") &&
            /the policy's author tenant-a-admin may not delete namespaces in namespace tenant-a/.test(r),
        ),
        `delete-namespaces was not refused for its author: ${refusals.join(" | ") || "none refused"}`,
      );
      // As Kyverno's webhook: a namespaced CleanupPolicy naming a cluster-wide kind or a namespaces filter.
      for (const name of ["sweep-namespaces", "sweep-tenant-b"])
        assert.ok(
          refusals.some((r) => r.startsWith(`${name}: `) && /not allowed in namespaced polic/.test(r)),
          `${name} was not refused with Kyverno's reason: ${refusals.join(" | ") || "none refused"}`,
        );
      const ttl = await asTenant(
        ["create", "-f", "-"],
        object("ConfigMap", "canary", "tenant-a", {
          metadata: { name: "canary", namespace: "tenant-a", labels: { "cleanup.kyverno.io/ttl": "5s" } },
        }),
      );
      assert.equal(ttl.code, 0, ttl.stderr);
    });

    test("every attempt the policy webhook can see is refused at kubectl apply, naming the field", async () => {
      const failures: string[] = [];
      for (const a of APPLY_ATTEMPTS) {
        const r = await asTenant(["apply", "-f", "-"], a.policy);
        if (r.code === 0) failures.push(`${a.what}: stored`);
        else if (!/validate-policy\.bylaw\.svc" denied the request/.test(r.stderr) || !a.reason.test(r.stderr))
          failures.push(`${a.what}: refused without ${String(a.reason)}: ${r.stderr.trim()}`);
      }
      assert.deepEqual(failures, []);
    });

    test("authorised as the author (rule 4): what a policy would make the controllers do, its author must be allowed; refused at kubectl apply otherwise", async () => {
      const failures: string[] = [];
      for (const a of AUTHOR_ATTEMPTS) {
        const r = await kit.current().kubectl(["--as", a.as, "apply", "-f", "-"], a.policy);
        responses.push(r.stdout, r.stderr);
        if (r.code === 0) failures.push(`${a.what} (as ${a.as}): stored`);
        else if (!/validate-policy\.bylaw\.svc" denied the request/.test(r.stderr) || !a.reason.test(r.stderr))
          failures.push(`${a.what} (as ${a.as}): refused without ${String(a.reason)}: ${r.stderr.trim()}`);
      }
      // The namespace admin may generate ConfigMaps in tenant-a: the same policy is stored for them.
      const own = AUTHOR_ATTEMPTS[0];
      assert.ok(own !== undefined);
      const stored = await asTenant(["apply", "-f", "-"], own.policy);
      assert.equal(stored.code, 0, `refused for the namespace admin: ${stored.stderr}`);
      await kit.ok(["delete", "policies.kyverno.io", "author-gen", "-n", "tenant-a", "--ignore-not-found"]);
      assert.deepEqual(failures, []);
    });

    test("what only substitution reveals: each UpdateRequest fails with the reason, nothing is copied into tenant-a", async () => {
      for (const p of [...RUNTIME_POLICIES, ...OWN_POLICIES]) {
        const r = await asTenant(["apply", "-f", "-"], p);
        assert.equal(r.code, 0, `refused: ${r.stderr}\n${p}`);
      }
      // A kind from the trigger may be any kind: the tenant may not apply these; an administrator does.
      for (const p of ANY_KIND_POLICIES) {
        const r = await asTenant(["apply", "-f", "-"], p);
        assert.notEqual(r.code, 0, `stored for the tenant:\n${p}`);
        assert.match(r.stderr, ANY_KIND_REASON);
        await kit.ok(["apply", "-f", "-"], p);
      }
      const attacks: [string, Record<string, string>][] = [
        ["gen-into", { target: "kube-system" }],
        ["gen-into", { target: "tenant-b" }],
        ["gen-kind", { kind: "Namespace" }],
        ["clone-in", { source: "tenant-b" }],
        ["clone-in", { source: "kube-system" }],
        ["clonelist-in", { source: "tenant-b" }],
        ["mut-var", { target: "kube-system" }],
        ["mut-var", { target: "tenant-b" }],
        ["mut-kind", { kind: "Namespace" }],
      ];
      for (const name of new Set(attacks.map(([p]) => p))) await readyPolicy("policy", name);
      const failures: string[] = [];
      for (const [policy, labels] of attacks) {
        const message = await failedRequest(policy, labels);
        console.log(`# ${policy} ${JSON.stringify(labels)}: Failed: ${message}`);
        const reason = RUNTIME_REASONS[policy];
        if (reason === undefined || !reason.test(message))
          failures.push(`${policy} ${JSON.stringify(labels)}: failed without ${String(reason)}: ${message}`);
      }
      assert.deepEqual(failures, []);
      // Kyverno's PolicyError Event on the policy, from kyverno-generate, says why.
      const event = await eventually("the clone-in PolicyError Event", 60_000, async () => {
        const list = JSON.parse(await kit.ok(["get", "events.events.k8s.io", "-n", "tenant-a", "-o", "json"])) as {
          items: { reason?: string; reportingController?: string; regarding?: { name?: string }; note?: string }[];
        };
        return list.items.find((e) => e.reason === "PolicyError" && e.regarding?.name === "clone-in");
      });
      assert.equal(event.reportingController, "kyverno-generate");
      assert.match(event.note ?? "", /may not read Secret in namespace "(tenant-b|kube-system)"/);
      assert.equal(
        await dataOf("secret", "copied", "tenant-a", "{.data.value}"),
        undefined,
        "a Secret was cloned into tenant-a",
      );
      const copies = await kit.ok(["get", "configmaps", "-n", "tenant-a", "-l", "canary=yes", "-o", "name"]);
      assert.equal(copies.trim(), "", "a ConfigMap was cloned into tenant-a");
    });

    test("a synchronized generate and a mutate by selector work in tenant-a and touch nothing of the same name elsewhere", async () => {
      await readyPolicy("policy", "sync-own");
      await readyPolicy("policy", "mut-selector");
      await kit.ok(
        ["create", "-f", "-"],
        object("ConfigMap", "mine", "tenant-a", {
          metadata: { name: "mine", namespace: "tenant-a", labels: { "mutate-me": "yes" } },
        }),
      );
      // Triggers made before the webhook serves the rules bring no work: made again until one does.
      await eventually("tenant-a's shared generated from the trigger", 120_000, async () => {
        await kit.ok(["delete", "configmap", "sync-trigger", "-n", "tenant-a", "--ignore-not-found"]);
        await asTenant(
          ["create", "-f", "-"],
          object("ConfigMap", "sync-trigger", "tenant-a", {
            metadata: { name: "sync-trigger", namespace: "tenant-a", labels: { attack: "sync-own" } },
            data: { v: "one" },
          }),
        );
        for (let i = 0; i < 20; i++) {
          if ((await dataOf("configmap", "shared", "tenant-a", "{.data.from}")) === "one") return true;
          await sleep(500);
        }
        return undefined;
      });
      // A write the loaded API server refuses (a timeout) is made again: only an accepted one brings work.
      await eventually("the trigger patched", 60_000, async () => {
        const r = await asTenant([
          "patch",
          "configmap",
          "sync-trigger",
          "-n",
          "tenant-a",
          "--type=merge",
          "-p",
          '{"data":{"v":"two"}}',
        ]);
        return r.code === 0 ? true : undefined;
      });
      await withDiagnostics(() =>
        eventually("tenant-a's shared synchronized", 60_000, async () =>
          (await dataOf("configmap", "shared", "tenant-a", "{.data.from}")) === "two" ? true : undefined,
        ),
      );
      await eventually("the trigger deleted", 60_000, async () =>
        (await asTenant(["delete", "configmap", "sync-trigger", "-n", "tenant-a", "--ignore-not-found"])).code === 0
          ? true
          : undefined,
      );
      await withDiagnostics(() =>
        eventually("tenant-a's shared deleted with its trigger", 60_000, async () =>
          (await dataOf("configmap", "shared", "tenant-a", "{.metadata.name}")) === undefined ? true : undefined,
        ),
      );
      await eventually("tenant-a's mine labelled by the mutate target selector", 120_000, async () => {
        await asTenant(
          ["create", "-f", "-"],
          object("ConfigMap", `mut-${Date.now()}`, "tenant-a", {
            metadata: { name: `mut-${Date.now()}`, namespace: "tenant-a", labels: { attack: "mut-selector" } },
          }),
        );
        for (let i = 0; i < 10; i++) {
          if ((await dataOf("configmap", "mine", "tenant-a", "{.metadata.labels.owned}")) === "by-tenant-a")
            return true;
          await sleep(500);
        }
        return undefined;
      });
    });

    test("a NamespacedMutatingPolicy's mutate-existing targets by selector are tenant-a's only", async () => {
      const applied = await asTenant(["apply", "-f", "-"], NAMESPACED_MUTATE_EXISTING);
      assert.equal(applied.code, 0, applied.stderr);
      await kit.ok(
        ["create", "-f", "-"],
        object("ConfigMap", "nmut-target", "tenant-a", {
          metadata: { name: "nmut-target", namespace: "tenant-a", labels: { "mutate-me": "yes" } },
        }),
      );
      // A trigger made before the webhook serves the policy brings no work: made again until one does.
      await eventually("tenant-a's nmut-target labelled by the NamespacedMutatingPolicy", 120_000, async () => {
        const name = `nmut-${Date.now()}`;
        await asTenant(
          ["create", "-f", "-"],
          object("ConfigMap", name, "tenant-a", {
            metadata: { name, namespace: "tenant-a", labels: { "nmut-trigger": "yes" } },
          }),
        );
        for (let i = 0; i < 20; i++) {
          if ((await dataOf("configmap", "nmut-target", "tenant-a", "{.metadata.labels.nmut}")) === "done") return true;
          await sleep(500);
        }
        return undefined;
      });
      for (const ns of ["tenant-b", "kube-system"])
        for (const name of ["canary", "shared"])
          assert.equal(
            await dataOf("configmap", name, ns, "{.metadata.labels.nmut}"),
            "",
            `ConfigMap ${ns}/${name} was labelled by tenant-a's NamespacedMutatingPolicy`,
          );
    });

    test("cleanup deletes only in tenant-a: the schedule's objects and the ttl-labelled canary go, nothing elsewhere", async () => {
      await eventually("doomed-c deleted by the CleanupPolicy", 150_000, async () =>
        (await dataOf("configmap", "doomed-c", "tenant-a", "{.metadata.name}")) === undefined ? true : undefined,
      );
      await eventually("doomed-d deleted by the NamespacedDeletingPolicy", 150_000, async () =>
        (await dataOf("configmap", "doomed-d", "tenant-a", "{.metadata.name}")) === undefined ? true : undefined,
      );
      await eventually("tenant-a's canary deleted by its ttl label", 90_000, async () =>
        (await dataOf("configmap", "canary", "tenant-a", "{.metadata.name}")) === undefined ? true : undefined,
      );
      // Every stored policy has run at least once since (lastExecutionTime), so a wider sweep would show now.
      for (const name of storedCleanup) {
        const [kind = "", policy = ""] = name.split("/");
        await eventually(`${name} executed`, 150_000, async () =>
          (await dataOf(kind, policy, "tenant-a", "{.status.lastExecutionTime}")) ? true : undefined,
        );
      }
    });

    test("the canaries in tenant-b, kube-system and canary-ns are unchanged (resourceVersion equal); no canary value leaked", async () => {
      assert.deepEqual(Object.fromEntries(await versions()), Object.fromEntries(before0));
      assert.ok(!before0.has("gone") && ![...before0.values()].includes("gone"), "every canary existed at the start");
      const places = await placesToSearch(kit.current(), responses);
      assert.deepEqual(canaryLeaks(canaries, places), []);
    });
  },
);
