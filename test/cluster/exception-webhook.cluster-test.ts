/**
 * The policy-validating webhook for PolicyExceptions, end to end with kubectl against one
 * `scripts/cluster.sh up DIR --with-bylaw` (Bylaw from the checkout, as the ServiceAccount, RBAC and
 * arguments deploy/ ships, registered):
 * - a kyverno.io/v2 PolicyException Bylaw cannot compile (user information in match while background
 *   processing is on) is refused at `kubectl apply`, naming the exception and the field;
 * - with exceptions off (deploy/'s default), a valid one of either group is created and `kubectl`
 *   prints Kyverno's warning that it would not be processed (and, for kyverno.io, the deprecation);
 * - restarted with `--enable-policy-exception --exception-namespace policy-exceptions`, one in another
 *   namespace gets Kyverno's "namespace must match" warning, one in policy-exceptions none.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  eventually,
  kubectlOk,
  restartBylaw,
  startCluster,
  started,
  tearDown,
  type Cluster,
  type RunResult,
} from "./cluster-harness.js";

/** The first run builds the control plane's components, which takes long. */
const BUILD_TIMEOUT_MS = 90 * 60_000;
let cluster: Cluster | undefined;
const kubectl = (args: readonly string[], input?: string): Promise<RunResult> => started(cluster).kubectl(args, input);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(started(cluster), args, input);

const DISABLED = "Warning: PolicyException resources would not be processed until it is enabled.";
const NOT_LISTED = "Warning: PolicyException resource namespace must match the defined namespace.";
const DEPRECATED = "Warning: PolicyException (kyverno.io) is deprecated and will be removed in a future release";

const V2 = (
  name: string,
  namespace: string,
  match = "      - resources:\n          kinds: [Pod]",
) => `apiVersion: kyverno.io/v2
kind: PolicyException
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  exceptions:
  - policyName: disallow-host-namespaces
    ruleNames: [host-namespaces]
  match:
    any:
${match}
`;

const CEL = (name: string, namespace: string) => `apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  policyRefs: [{kind: ValidatingPolicy, name: disallow-host-namespaces}]
`;

/** `kubectl apply` that must succeed; its stderr (where kubectl prints the webhook's warnings). */
async function applied(yaml: string): Promise<string> {
  const r = await kubectl(["apply", "-f", "-"], yaml);
  assert.equal(r.code, 0, r.stderr);
  return r.stderr;
}

describe(
  "PolicyExceptions at kubectl apply (the policy-validating webhook, a real cluster)",
  { timeout: BUILD_TIMEOUT_MS + 10 * 60_000 },
  () => {
    before(async () => {
      cluster = await startCluster(BUILD_TIMEOUT_MS, undefined, { withBylaw: true });
      console.log(`# scripts/cluster.sh up --with-bylaw took ${cluster.upSeconds.toFixed(1)} s`);
      for (const ns of ["team-a", "policy-exceptions"]) await ok(["create", "namespace", ns]);
    });

    after(() => tearDown(cluster));

    test("a kyverno.io/v2 PolicyException that does not compile is refused with the exception and the field", async () => {
      const subjects =
        "      - resources:\n          kinds: [Pod]\n        subjects:\n        - kind: User\n          name: alice";
      const r = await eventually("the invalid PolicyException refused", 60_000, async () => {
        const res = await kubectl(["apply", "-f", "-"], V2("by-user", "policy-exceptions", subjects));
        if (res.code === 0) {
          await kubectl(["delete", "polex", "by-user", "-n", "policy-exceptions", "--ignore-not-found"]);
          throw new Error("admitted");
        }
        return res;
      });
      assert.match(
        r.stderr,
        /admission webhook "validate-policy\.bylaw\.svc" denied the request: PolicyException by-user: spec\.match\.any\[0\]\.subjects: Forbidden: Usage of user info is forbidden/,
      );
      assert.notEqual((await kubectl(["get", "polex", "by-user", "-n", "policy-exceptions"])).code, 0, "not created");
      // The same exception with background processing off is valid, as in Kyverno.
      const fixed = V2("by-user", "policy-exceptions", subjects).replace("spec:\n", "spec:\n  background: false\n");
      await applied(fixed);
    });

    test("exceptions off (deploy/'s default): a valid PolicyException of either group is created with Kyverno's warning", async () => {
      const v2 = await applied(V2("allow-tools", "policy-exceptions"));
      assert.ok(v2.includes(DISABLED), v2);
      assert.ok(v2.includes(DEPRECATED), v2);
      assert.ok(
        v2.indexOf(DISABLED) < v2.indexOf(DEPRECATED),
        "Kyverno's order: the namespace warning, then the deprecation",
      );
      const cel = await applied(CEL("allow-batch", "team-a"));
      assert.ok(cel.includes(DISABLED), cel);
      assert.ok(!cel.includes(DEPRECATED), cel);
    });

    test("with --enable-policy-exception --exception-namespace policy-exceptions: another namespace gets Kyverno's warning, the named one none", async () => {
      await restartBylaw(started(cluster), {
        extraArgs: "--enable-policy-exception --exception-namespace policy-exceptions",
      });
      const outside = await eventually("the namespace warning", 60_000, async () => {
        const stderr = await applied(V2("team-tools", "team-a"));
        if (stderr.includes(NOT_LISTED)) return stderr;
        await ok(["delete", "polex", "team-tools", "-n", "team-a"]);
        return undefined;
      });
      assert.ok(!outside.includes(DISABLED), outside);
      const inside = await applied(V2("listed-tools", "policy-exceptions"));
      assert.ok(!inside.includes(NOT_LISTED) && !inside.includes(DISABLED), inside);
      assert.ok(inside.includes(DEPRECATED), inside);
      const celOutside = await applied(CEL("team-batch", "team-a"));
      assert.ok(celOutside.includes(NOT_LISTED), celOutside);
      const celInside = await applied(CEL("listed-batch", "policy-exceptions"));
      assert.doesNotMatch(celInside, /Warning:/);
    });
  },
);
