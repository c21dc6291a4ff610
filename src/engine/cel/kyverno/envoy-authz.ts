/**
 * kyverno-authz's Envoy authorization library (pkg/cel/libs/authz/envoy), the environment of a
 * ValidatingPolicy with `spec.evaluation.mode: Envoy`: `object` is an Envoy
 * `envoy.service.auth.v3.CheckRequest` (its fields selected by their proto names, an unset one
 * reading as its default: envoy-messages.ts); `envoy.Allowed()` and `envoy.Denied(code)` start a
 * decision, which `WithHeader`, `WithoutHeader`, `WithResponseHeader`, `WithQueryParam`,
 * `WithoutQueryParam` (allowed) and `WithBody`, `WithHeader` (denied) refine, with
 * `envoy.Header(k, v)` (`.KeepEmptyValue()`) and `envoy.QueryParam(k, v)`; `.Response()` turns it
 * into the `envoy.service.auth.v3.CheckResponse` a validation answers with (or `null`: no
 * decision), which `WithMessage` and `WithMetadata` complete.
 *
 * `.Response()` is typed `dyn` here, not `envoy.service.auth.v3.CheckResponse` as in cel-go, for
 * the reason kyverno/http-authz.ts gives: a validation's value is checked when it runs.
 */
import { CelFunctionError, namespace, type CelFunction, type CelLibrary } from "../library.js";
import { ProtoRegistry, type ProtoMessage } from "./proto-messages.js";
import { decodeProtoJson } from "./protojson.js";
import {
  CHECK_REQUEST,
  CHECK_RESPONSE,
  DENIED_RESPONSE,
  ENVOY_MESSAGES,
  HEADER_VALUE,
  HEADER_VALUE_OPTION,
  HTTP_STATUS,
  OK_RESPONSE,
  QUERY_PARAMETER,
  RPC_STATUS,
} from "./envoy-messages.js";

/** The Envoy messages: their classes and defaults (one registry: the library's types and the payload decoder share it). */
const envoyMessages = new ProtoRegistry(ENVOY_MESSAGES);

/** True for the `envoy.service.auth.v3.CheckResponse` a validation answers with. */
export function isEnvoyResponse(v: unknown): v is ProtoMessage {
  return v instanceof envoyMessages.classOf(CHECK_RESPONSE);
}

/** google.rpc.Code values kyverno-authz's Response() sets. */
const RPC_OK = 0n;
const RPC_PERMISSION_DENIED = 7n;
const INT32 = 2n ** 31n;

type M = ProtoMessage;
const list = (m: M, f: string): unknown[] => m[f] as unknown[];
const header = (key: string, value: string): M =>
  envoyMessages.create(HEADER_VALUE_OPTION, { header: envoyMessages.create(HEADER_VALUE, { key, value }) });
const appended = (m: M, f: string, item: unknown): M => envoyMessages.with(m, { [f]: [...list(m, f), item] });

const NS = "kyverno.authz.EnvoyNamespace";
const [OK, DENIED, HVO, QP, RESPONSE] = [
  OK_RESPONSE,
  DENIED_RESPONSE,
  HEADER_VALUE_OPTION,
  QUERY_PARAMETER,
  CHECK_RESPONSE,
];

/** envoy.Allowed(), envoy.Denied(code), envoy.Header(k, v), envoy.QueryParam(k, v) and what refines a decision. */
const DECISIONS: CelFunction[] = [
  { signature: `${NS}.Allowed(): ${OK}`, handler: () => envoyMessages.create(OK) },
  {
    signature: `${NS}.Denied(int): ${DENIED}`,
    handler: (_: unknown, code: bigint) => {
      // kyverno-authz converts the code to Envoy's StatusCode, an int32.
      if (code < -INT32 || code >= INT32) throw new CelFunctionError("integer overflow");
      return envoyMessages.create(DENIED, { status: envoyMessages.create(HTTP_STATUS, { code }) });
    },
  },
  {
    signature: `${NS}.Header(string, string): ${HVO}`,
    handler: (_: unknown, k: string, v: string) => header(k, v),
  },
  {
    signature: `${NS}.QueryParam(string, string): ${QP}`,
    handler: (_: unknown, key: string, value: string) => envoyMessages.create(QP, { key, value }),
  },
  {
    signature: `${DENIED}.WithBody(string): ${DENIED}`,
    handler: (d: M, body: string) => envoyMessages.with(d, { body }),
  },
  ...[OK, DENIED].flatMap((t) => [
    { signature: `${t}.WithHeader(${HVO}): ${t}`, handler: (m: M, h: M) => appended(m, "headers", h) },
    {
      signature: `${t}.WithHeader(string, string): ${t}`,
      handler: (m: M, k: string, v: string) => appended(m, "headers", header(k, v)),
    },
  ]),
  {
    signature: `${OK}.WithoutHeader(string): ${OK}`,
    handler: (m: M, k: string) => appended(m, "headers_to_remove", k),
  },
  {
    signature: `${OK}.WithResponseHeader(${HVO}): ${OK}`,
    handler: (m: M, h: M) => appended(m, "response_headers_to_add", h),
  },
  {
    signature: `${OK}.WithResponseHeader(string, string): ${OK}`,
    handler: (m: M, k: string, v: string) => appended(m, "response_headers_to_add", header(k, v)),
  },
  {
    signature: `${OK}.WithQueryParam(${QP}): ${OK}`,
    handler: (m: M, p: M) => appended(m, "query_parameters_to_set", p),
  },
  {
    signature: `${OK}.WithQueryParam(string, string): ${OK}`,
    handler: (m: M, key: string, value: string) =>
      appended(m, "query_parameters_to_set", envoyMessages.create(QP, { key, value })),
  },
  {
    signature: `${OK}.WithoutQueryParam(string): ${OK}`,
    handler: (m: M, k: string) => appended(m, "query_parameters_to_remove", k),
  },
  {
    signature: `${HVO}.KeepEmptyValue(): ${HVO}`,
    handler: (h: M) => envoyMessages.with(h, { keep_empty_value: true }),
  },
  {
    signature: `${HVO}.KeepEmptyValue(bool): ${HVO}`,
    handler: (h: M, keep: boolean) => envoyMessages.with(h, { keep_empty_value: keep }),
  },
];

/** `.Response()` and what completes a response. */
const RESPONSES: CelFunction[] = [
  {
    signature: `${OK}.Response(): dyn`,
    handler: (ok: M) =>
      envoyMessages.create(RESPONSE, {
        status: envoyMessages.create(RPC_STATUS, { code: RPC_OK }),
        ok_response: ok,
      }),
  },
  {
    signature: `${DENIED}.Response(): dyn`,
    handler: (denied: M) =>
      envoyMessages.create(RESPONSE, {
        status: envoyMessages.create(RPC_STATUS, { code: RPC_PERMISSION_DENIED }),
        denied_response: denied,
      }),
  },
  {
    signature: `${RESPONSE}.WithMessage(string): ${RESPONSE}`,
    handler: (r: M, message: string) =>
      envoyMessages.with(r, { status: envoyMessages.with(r["status"] as M, { message }) }),
  },
  {
    signature: `${RESPONSE}.WithMetadata(map<string, dyn>): ${RESPONSE}`,
    handler: (r: M, metadata: unknown) => envoyMessages.with(r, { dynamic_metadata: metadata }),
  },
];

export function envoyAuthzLibrary(): CelLibrary {
  const { types, constants } = namespace("envoy", NS);
  return {
    name: "kyverno.authz.envoy",
    types: [...(types ?? []), ...envoyMessages.celTypes()],
    ...(constants !== undefined ? { constants } : {}),
    functions: [...DECISIONS, ...RESPONSES],
  };
}

/**
 * An Envoy payload (`kyverno apply --envoy-payload FILE`, a test's `envoyPayloads`) read into the
 * CheckRequest an Envoy-mode policy sees, as Kyverno's CLI reads it: protojson.Unmarshal (protojson.ts).
 */
export function decodeEnvoyRequest(text: string) {
  return decodeProtoJson(envoyMessages, CHECK_REQUEST, text);
}
