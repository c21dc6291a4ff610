/**
 * A seeded generator of AdmissionReview request bodies for fuzzing the webhook: valid reviews of
 * several kinds and operations, the same with random fields mutated (wrong types, missing fields,
 * hostile values), and broken text (duplicate keys, truncation, garbage bytes, deep brackets).
 * The same seed always gives the same case.
 */
import { seededRandom } from "../support/seeded-random.js";
import { choose, hostileString, hostileValue, int, pollutingObject } from "./hostile-values.js";

type Pick = () => number;
type Json = Record<string, unknown>;

export interface FuzzCase {
  readonly seed: number;
  readonly path: string;
  /** The request body as sent (may be invalid JSON). */
  readonly text: string;
  /** Which family of case this is, for the counts. */
  readonly shape: "valid" | "mutated" | "wrong-type" | "text";
}

export const PATHS = [
  "/validate",
  "/validate/fail",
  "/validate/ignore",
  "/mutate",
  "/mutate/fail",
  "/mutate/ignore",
  "/policyvalidate",
  "/policymutate",
] as const;
const OPERATIONS = ["CREATE", "UPDATE", "DELETE", "CONNECT"];
const NAMESPACES = ["default", "shop", "team-a", "kube-system", ""];
const IMAGES = [
  "nginx",
  "nginx:latest",
  "registry.example.com/shop/web:1.2.3",
  "busybox@sha256:" + "a".repeat(64),
  "ghcr.io/x/y:v1",
];

function container(pick: Pick, i: number): Json {
  const c: Json = { name: `c${i}`, image: choose(pick, IMAGES) };
  if (pick() < 0.5)
    c["securityContext"] = {
      privileged: pick() < 0.3,
      allowPrivilegeEscalation: pick() < 0.5,
      runAsNonRoot: pick() < 0.5,
      capabilities: { add: pick() < 0.3 ? ["NET_ADMIN"] : [], drop: ["ALL"] },
    };
  if (pick() < 0.3) c["ports"] = [{ containerPort: 1 + int(pick, 65535), hostPort: pick() < 0.2 ? 80 : undefined }];
  if (pick() < 0.3) c["resources"] = { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "100m" } };
  return c;
}

function podSpec(pick: Pick): Json {
  const spec: Json = { containers: Array.from({ length: 1 + int(pick, 4) }, (_, i) => container(pick, i)) };
  if (pick() < 0.3) spec["hostNetwork"] = pick() < 0.5;
  if (pick() < 0.3)
    spec["securityContext"] = {
      runAsNonRoot: true,
      seccompProfile: { type: choose(pick, ["RuntimeDefault", "Unconfined", "Localhost"]) },
    };
  if (pick() < 0.2)
    spec["volumes"] = [
      { name: "v", hostPath: { path: "/etc" } },
      { name: "e", emptyDir: {} },
    ];
  if (pick() < 0.2) spec["initContainers"] = [container(pick, 9)];
  return spec;
}

function resource(pick: Pick, namespace: string): Json {
  const name = `obj-${int(pick, 1000)}`;
  const metadata: Json = {
    name,
    namespace,
    labels: pick() < 0.5 ? { app: "web", team: choose(pick, ["a", "b", ""]) } : {},
  };
  if (pick() < 0.2) metadata["annotations"] = { "kubernetes.io/description": "x" };
  switch (int(pick, 6)) {
    case 0:
    case 1:
      return { apiVersion: "v1", kind: "Pod", metadata, spec: podSpec(pick) };
    case 2:
      return {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata,
        spec: {
          replicas: 1 + int(pick, 5),
          selector: { matchLabels: { app: "web" } },
          template: { metadata: { labels: { app: "web" } }, spec: podSpec(pick) },
        },
      };
    case 3:
      return {
        apiVersion: "batch/v1",
        kind: "CronJob",
        metadata,
        spec: { schedule: "* * * * *", jobTemplate: { spec: { template: { spec: podSpec(pick) } } } },
      };
    case 4:
      return { apiVersion: "v1", kind: "ConfigMap", metadata, data: { a: "b", big: "z".repeat(int(pick, 2000)) } };
    default:
      return {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name, labels: { "kubernetes.io/metadata.name": name } },
      };
  }
}

function policyObject(pick: Pick): Json {
  return {
    apiVersion: "kyverno.io/v1",
    kind: choose(pick, ["ClusterPolicy", "Policy"]),
    metadata: { name: `p-${int(pick, 100)}`, namespace: "shop" },
    spec: {
      validationFailureAction: choose(pick, ["Enforce", "Audit", "enforce", "Force"]),
      ...(pick() < 0.3 ? { generateExistingOnPolicyUpdate: true } : {}),
      rules: [
        {
          name: "r",
          match: { any: [{ resources: { kinds: [choose(pick, ["Pod", "Deployment", "*"])] } }] },
          validate: { message: "m", pattern: { metadata: { labels: { app: "?*" } } } },
        },
      ],
    },
  };
}

/** A well-formed review for `path`. */
export function validReview(pick: Pick, path: string): Json {
  const policy = path.startsWith("/policy") && pick() < 0.8;
  const namespace = choose(pick, NAMESPACES);
  const object = policy ? policyObject(pick) : resource(pick, namespace);
  const operation = choose(pick, OPERATIONS);
  const kind = object["kind"] as string;
  const request: Json = {
    uid: `${int(pick, 1e9)}-${int(pick, 1e9)}`,
    kind: { group: kind === "Deployment" ? "apps" : kind.endsWith("Policy") ? "kyverno.io" : "", version: "v1", kind },
    resource: { group: "", version: "v1", resource: `${kind.toLowerCase()}s` },
    name: (object["metadata"] as Json)["name"],
    namespace,
    operation,
    userInfo: {
      username: choose(pick, ["dev", "system:serviceaccount:kube-system:x", "admin"]),
      groups: ["system:authenticated"],
      ...(pick() < 0.2 ? { extra: { scopes: ["a"] } } : {}),
    },
    object: operation === "DELETE" ? null : object,
    dryRun: pick() < 0.2,
  };
  if (operation !== "CREATE") request["oldObject"] = object;
  if (operation === "CONNECT" || pick() < 0.1)
    request["subResource"] = choose(pick, ["exec", "status", "scale", "attach"]);
  if (pick() < 0.3) request["requestKind"] = request["kind"];
  if (pick() < 0.2) request["options"] = { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" };
  return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request };
}

/** Every object and array in `value`, with the key that reaches it from its parent. */
function containers(
  value: unknown,
  out: [Json | unknown[], string | number][] = [],
  depth = 0,
): [Json | unknown[], string | number][] {
  if (depth > 12 || typeof value !== "object" || value === null) return out;
  if (Array.isArray(value))
    value.forEach((v, i) => {
      out.push([value, i]);
      containers(v, out, depth + 1);
    });
  else
    for (const [k, v] of Object.entries(value)) {
      out.push([value as Json, k]);
      containers(v, out, depth + 1);
    }
  return out;
}

/** Changes 1–4 random places in the review: replace with a hostile value, delete, or add a polluting key. */
function mutate(pick: Pick, review: Json): Json {
  const places = containers(review);
  for (let n = 1 + int(pick, 4); n > 0 && places.length > 0; n--) {
    const [parent, key] = choose(pick, places);
    const r = pick();
    if (Array.isArray(parent)) {
      if (r < 0.2) parent.splice(key as number, 1);
      else parent[key as number] = hostileValue(pick);
    } else if (r < 0.2) delete parent[key as string];
    else if (r < 0.3) Object.assign(parent, pollutingObject(pick));
    else parent[key as string] = hostileValue(pick);
  }
  return review;
}

const FIELDS: readonly (readonly string[])[] = [
  ["apiVersion"],
  ["kind"],
  ["request"],
  ["request", "uid"],
  ["request", "kind"],
  ["request", "kind", "kind"],
  ["request", "kind", "version"],
  ["request", "operation"],
  ["request", "namespace"],
  ["request", "name"],
  ["request", "object"],
  ["request", "oldObject"],
  ["request", "userInfo"],
  ["request", "userInfo", "groups"],
  ["request", "userInfo", "username"],
  ["request", "userInfo", "extra"],
  ["request", "dryRun"],
  ["request", "resource"],
  ["request", "subResource"],
  ["request", "object", "metadata"],
  ["request", "object", "metadata", "name"],
  ["request", "object", "metadata", "labels"],
  ["request", "object", "spec"],
  ["request", "object", "spec", "containers"],
  ["request", "object", "kind"],
];
const TYPES: readonly (() => unknown)[] = [
  () => null,
  () => 42,
  () => "s",
  () => true,
  () => [],
  () => ({}),
  () => [{}],
  () => ["a", 1, null],
  () => -0.5,
];

/** One field set to a value of the wrong type (or removed). */
function wrongType(pick: Pick, review: Json): Json {
  const path = choose(pick, FIELDS);
  let parent: unknown = review;
  for (const k of path.slice(0, -1))
    parent = typeof parent === "object" && parent !== null ? (parent as Json)[k] : undefined;
  if (typeof parent !== "object" || parent === null) return review;
  const last = path[path.length - 1] as string;
  if (pick() < 0.15) delete (parent as Json)[last];
  else (parent as Json)[last] = choose(pick, TYPES)();
  return review;
}

/** Broken or tricky JSON text built around a valid review. */
function textCase(pick: Pick, review: Json): string {
  const json = JSON.stringify(review);
  switch (int(pick, 10)) {
    case 0:
      return json.slice(0, int(pick, json.length));
    case 1:
      return json.replace(
        '"request":{',
        `"request":{"uid":${JSON.stringify(hostileValue(pick)) ?? "null"},"operation":"CREATE",`,
      );
    case 2:
      return `${json.slice(0, -1)},"request":${JSON.stringify(hostileValue(pick)) ?? "null"}}`;
    case 3:
      return Buffer.from(Array.from({ length: 1 + int(pick, 512) }, () => int(pick, 256))).toString("latin1");
    case 4:
      return "[".repeat(1 + int(pick, 100_000));
    case 5:
      return `\uFEFF${json}`;
    case 6:
      return json.replace(/"(name|namespace)":"[^"]*"/, `"$1":"\\ud800\\u0000\\u202e"`);
    case 7:
      return json.replace(/:(true|false|\d+)/, ":1e999");
    case 8:
      return choose(pick, [
        "",
        " ",
        "null",
        "[]",
        "0",
        '"AdmissionReview"',
        "{}",
        '{"request":{}}',
        '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}',
      ]);
    default:
      return `{"__proto__":{"allowed":true},${json.slice(1)}`;
  }
}

export function generateCase(seed: number): FuzzCase {
  const pick = seededRandom(seed);
  const path = choose(pick, PATHS);
  const review = validReview(pick, path);
  const r = pick();
  if (r < 0.2) return { seed, path, text: JSON.stringify(review), shape: "valid" };
  if (r < 0.6) return { seed, path, text: JSON.stringify(mutate(pick, review)), shape: "mutated" };
  if (r < 0.8) return { seed, path, text: JSON.stringify(wrongType(pick, review)), shape: "wrong-type" };
  return { seed, path, text: textCase(pick, review), shape: "text" };
}

/** A few valid reviews to batch a fuzz case with, so batch evaluation sees it among others. */
export function companions(seed: number, path: string): string[] {
  const pick = seededRandom(seed ^ 0x5bd1e995);
  return Array.from({ length: 1 + int(pick, 3) }, () => JSON.stringify(validReview(pick, path)));
}

export { hostileString };
