/**
 * Keeps Secret contents out of logs wherever they sit in a logged value, at any depth:
 * - an object with `kind: "Secret"` (or an item of a `SecretList`, whose items carry no kind)
 *   loses `data`, `stringData` and the `kubectl.kubernetes.io/last-applied-configuration`
 *   annotation (which repeats the data);
 * - an AdmissionRequest for a Secret (`kind.kind: "Secret"` or `resource.resource: "secrets"`)
 *   has its `object` and `oldObject` treated as Secrets, and an AdmissionReview holding one loses
 *   its `response.patch` (a patch of a Secret can carry its values).
 * The value is copied only where something is removed; the caller's object is never changed.
 */

export const REDACTED = "[REDACTED]";
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const SECRET_FIELDS = new Set(["data", "stringData"]);
/** Deeper than this, a value is replaced outright: a log line cannot be proven clean past it. */
const MAX_DEPTH = 64;

type Obj = Readonly<Record<string, unknown>>;

export function redactSecrets<T>(value: T): T {
  return scrub(value, 0, new Set()) as T;
}

/**
 * For a log object (or child bindings): what pino's `*.data` and `*.stringData` paths would
 * remove (the fields of that name at the top and one level down, whatever the kind), done here
 * because pino's wildcard redaction is slow on the hot path (figures:
 * docs/adr/0004-appendix-figures-in-code.md); then `redactSecrets`.
 */
export function redactLogObject(obj: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  let out: Record<string, unknown> | undefined;
  for (const [key, v] of Object.entries(obj)) {
    const s = SECRET_FIELDS.has(key) ? (v === undefined ? v : REDACTED) : isPlainObject(v) ? withoutDataFields(v) : v;
    if (s !== v) (out ??= { ...obj })[key] = s;
  }
  return redactSecrets(out ?? obj);
}

function withoutDataFields(obj: Obj): Obj {
  let out: Record<string, unknown> | undefined;
  for (const key of SECRET_FIELDS) if (obj[key] !== undefined) (out ??= { ...obj })[key] = REDACTED;
  return out ?? obj;
}

function scrub(value: unknown, depth: number, path: Set<object>): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth > MAX_DEPTH) return REDACTED;
  // A cycle back to an object being copied would put the original, uncleaned, into the copy.
  if (path.has(value)) return "[Circular]";
  if (Array.isArray(value)) {
    const list: unknown[] = value;
    path.add(list);
    let out: unknown[] | undefined;
    list.forEach((v, i) => {
      const s = scrub(v, depth + 1, path);
      if (s !== v) (out ??= [...list])[i] = s;
    });
    path.delete(value);
    return out ?? value;
  }
  if (!isPlain(value)) return value;
  return scrubObject(value as Obj, isSecret(value as Obj), depth, path);
}

function scrubObject(obj: Obj, secret: boolean, depth: number, path: Set<object>): Obj {
  path.add(obj);
  const secretRequest = isSecretRequest(obj);
  const secretList = obj["kind"] === "SecretList";
  const secretReview = isPlainObject(obj["request"]) && isSecretRequest(obj["request"]);
  let out: Record<string, unknown> | undefined;
  for (const [key, v] of Object.entries(obj)) {
    let s: unknown;
    if (secret && SECRET_FIELDS.has(key)) s = v === undefined ? v : REDACTED;
    else if (secret && key === "metadata" && isPlainObject(v)) s = scrubMetadata(v, depth + 1, path);
    else if (secretRequest && (key === "object" || key === "oldObject") && isPlainObject(v))
      s = scrubObject(v, true, depth + 1, path);
    else if (secretList && key === "items" && Array.isArray(v))
      s = scrub(
        v.map((i: unknown) => (isPlainObject(i) ? scrubObject(i, true, depth + 2, path) : i)),
        depth + 1,
        path,
      );
    else if (secretReview && key === "response" && isPlainObject(v) && v["patch"] !== undefined)
      s = scrub({ ...v, patch: REDACTED }, depth + 1, path);
    else s = scrub(v, depth + 1, path);
    if (s !== v) (out ??= { ...obj })[key] = s;
  }
  path.delete(obj);
  return out ?? obj;
}

function scrubMetadata(metadata: Obj, depth: number, path: Set<object>): unknown {
  const annotations = metadata["annotations"];
  const cleaned =
    isPlainObject(annotations) && annotations[LAST_APPLIED] !== undefined
      ? { ...metadata, annotations: { ...annotations, [LAST_APPLIED]: REDACTED } }
      : metadata;
  return scrub(cleaned, depth, path);
}

function isSecret(obj: Obj): boolean {
  return obj["kind"] === "Secret";
}

function isSecretRequest(obj: Obj): boolean {
  const kind = obj["kind"];
  const resource = obj["resource"];
  return (
    (isPlainObject(kind) && kind["kind"] === "Secret") ||
    (isPlainObject(resource) && resource["resource"] === "secrets")
  );
}

function isPlain(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function isPlainObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v) && isPlain(v);
}
