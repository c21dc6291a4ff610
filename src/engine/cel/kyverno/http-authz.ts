/**
 * kyverno-authz's HTTP authorization library (pkg/cel/libs/authz/http), the environment of a
 * ValidatingPolicy with `spec.evaluation.mode: HTTP`: `object` is an `http.CheckRequest`, whose
 * `attributes` (an `http.CheckRequestAttributes`) hold the request's method, header, host,
 * protocol, contentLength, body, scheme, path, query and fragment; `attributes.Header(name)` gives
 * a header's values (the name canonicalised as Go's net/textproto does), `attributes.QueryParam(name)`
 * a query parameter's; `http.Allowed()` and `http.Denied(reason)` make a decision and `.Response()`
 * turns it into the `http.CheckResponse` a validation answers with (or `null`: no decision).
 *
 * `.Response()` is typed `dyn` here, not `http.CheckResponse` as in cel-go: cel-js does not
 * unify `null` with an object type, and `cond ? http.Denied("…").Response() : null` is how these
 * policies are written. A validation's value is checked when it runs (validate-authz.ts).
 */
import type { CelLibrary } from "../library.js";

const CHECK_REQUEST = "http.CheckRequest";
const ATTRIBUTES = "http.CheckRequestAttributes";
const RESPONSE = "http.CheckResponse";
const OK = "http.CheckResponseOk";
const DENIED = "http.CheckResponseDenied";
/** The type of Kyverno's `http` value (context-libs.ts), on which `http.Allowed()` and `http.Denied()` are called. */
const HTTP_CONTEXT = "kyverno.HttpContext";

type Values = Readonly<Record<string, readonly string[]>>;

export interface HttpRequestFields {
  readonly method: string;
  readonly header: Values;
  readonly host: string;
  readonly protocol: string;
  readonly contentLength: bigint;
  readonly body: Uint8Array;
  readonly scheme: string;
  readonly path: string;
  readonly query: Values;
  readonly fragment: string;
}

export class CheckRequestAttributes implements HttpRequestFields {
  readonly method: string;
  readonly header: Values;
  readonly host: string;
  readonly protocol: string;
  readonly contentLength: bigint;
  readonly body: Uint8Array;
  readonly scheme: string;
  readonly path: string;
  readonly query: Values;
  readonly fragment: string;
  constructor(f: HttpRequestFields) {
    this.method = f.method;
    this.header = f.header;
    this.host = f.host;
    this.protocol = f.protocol;
    this.contentLength = f.contentLength;
    this.body = f.body;
    this.scheme = f.scheme;
    this.path = f.path;
    this.query = f.query;
    this.fragment = f.fragment;
  }
}
Object.defineProperty(CheckRequestAttributes, "name", { value: ATTRIBUTES });

export class CheckRequest {
  constructor(readonly attributes: CheckRequestAttributes) {}
}
Object.defineProperty(CheckRequest, "name", { value: CHECK_REQUEST });

class CheckResponseOk {}
Object.defineProperty(CheckResponseOk, "name", { value: OK });

class CheckResponseDenied {
  constructor(readonly reason: string) {}
}
Object.defineProperty(CheckResponseDenied, "name", { value: DENIED });

export class CheckResponse {
  constructor(
    readonly ok: CheckResponseOk | null,
    readonly denied: CheckResponseDenied | null,
  ) {}
}
Object.defineProperty(CheckResponse, "name", { value: RESPONSE });

const VALUES = "map<string, list<string>>";

/** The library; registered after Kyverno's libraries (the `http` value's type is theirs). */
export function httpAuthzLibrary(): CelLibrary {
  return {
    name: "kyverno.authz.http",
    types: [
      {
        name: ATTRIBUTES,
        ctor: CheckRequestAttributes,
        fields: {
          method: "string",
          header: VALUES,
          host: "string",
          protocol: "string",
          contentLength: "int",
          body: "bytes",
          scheme: "string",
          path: "string",
          query: VALUES,
          fragment: "string",
        },
      },
      { name: CHECK_REQUEST, ctor: CheckRequest, fields: { attributes: ATTRIBUTES } },
      { name: OK, ctor: CheckResponseOk, fields: {} },
      { name: DENIED, ctor: CheckResponseDenied, fields: { reason: "string" } },
      { name: RESPONSE, ctor: CheckResponse, fields: { ok: OK, denied: DENIED } },
    ],
    functions: [
      { signature: `${HTTP_CONTEXT}.Allowed(): ${OK}`, handler: () => new CheckResponseOk() },
      {
        signature: `${HTTP_CONTEXT}.Denied(string): ${DENIED}`,
        handler: (_: unknown, r: string) => new CheckResponseDenied(r),
      },
      { signature: `${OK}.Response(): dyn`, handler: (o: CheckResponseOk) => new CheckResponse(o, null) },
      { signature: `${DENIED}.Response(): dyn`, handler: (d: CheckResponseDenied) => new CheckResponse(null, d) },
      {
        signature: `${ATTRIBUTES}.Header(string): list<string>`,
        handler: (a: CheckRequestAttributes, name: string) => valuesOf(a.header, canonicalHeaderKey(name)),
      },
      {
        signature: `${ATTRIBUTES}.QueryParam(string): list<string>`,
        handler: (a: CheckRequestAttributes, name: string) => valuesOf(a.query, name),
      },
    ],
  };
}

function valuesOf(m: Values, key: string): readonly string[] {
  return (Object.hasOwn(m, key) ? m[key] : undefined) ?? [];
}

/** A header name as Go's textproto.CanonicalMIMEHeaderKey writes it ("content-type" → "Content-Type"). */
export function canonicalHeaderKey(name: string): string {
  // A name with a byte that is not a token character is returned unchanged.
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]*$/.test(name)) return name;
  let upper = true;
  let out = "";
  for (const c of name) {
    out += upper ? c.toUpperCase() : c.toLowerCase();
    upper = c === "-";
  }
  return out;
}
