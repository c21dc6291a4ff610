/**
 * The protocol buffer messages of kyverno-authz's Envoy library (pkg/cel/libs/authz/envoy, which
 * registers envoy.service.auth.v3.CheckRequest, DeniedHttpResponse, OkHttpResponse,
 * google.rpc.Status and google.protobuf.Struct with cel-go): the request an Envoy-mode
 * ValidatingPolicy reads as `object` and the responses it answers with, each field as Envoy's
 * go-control-plane (v1.37) declares it.
 */
import { field, type ProtoSchema } from "./proto-messages.js";

const AUTH = "envoy.service.auth.v3";
const CORE = "envoy.config.core.v3";

export const CHECK_REQUEST = `${AUTH}.CheckRequest`;
export const CHECK_RESPONSE = `${AUTH}.CheckResponse`;
export const OK_RESPONSE = `${AUTH}.OkHttpResponse`;
export const DENIED_RESPONSE = `${AUTH}.DeniedHttpResponse`;
export const HEADER_VALUE_OPTION = `${CORE}.HeaderValueOption`;
export const HEADER_VALUE = `${CORE}.HeaderValue`;
export const QUERY_PARAMETER = `${CORE}.QueryParameter`;
export const HTTP_STATUS = "envoy.type.v3.HttpStatus";
export const RPC_STATUS = "google.rpc.Status";

const PEER = `${AUTH}.AttributeContext.Peer`;
const METADATA = `${CORE}.Metadata`;
const msg = (message: string) => ({ message });
const strings = { map: "string" } as const;

export const ENVOY_MESSAGES: readonly ProtoSchema[] = [
  { name: CHECK_REQUEST, fields: [field("attributes", msg(`${AUTH}.AttributeContext`))] },
  {
    name: `${AUTH}.AttributeContext`,
    fields: [
      field("source", msg(PEER)),
      field("destination", msg(PEER)),
      field("request", msg(`${AUTH}.AttributeContext.Request`)),
      field("context_extensions", strings),
      field("metadata_context", msg(METADATA)),
      field("route_metadata_context", msg(METADATA)),
      field("tls_session", msg(`${AUTH}.AttributeContext.TLSSession`)),
    ],
  },
  {
    name: PEER,
    fields: [
      field("address", msg(`${CORE}.Address`)),
      field("service", "string"),
      field("labels", strings),
      field("principal", "string"),
      field("certificate", "string"),
    ],
  },
  {
    name: `${CORE}.Address`,
    fields: [
      field("socket_address", msg(`${CORE}.SocketAddress`), "address"),
      field("pipe", msg(`${CORE}.Pipe`), "address"),
      field("envoy_internal_address", msg(`${CORE}.EnvoyInternalAddress`), "address"),
    ],
  },
  {
    name: `${CORE}.SocketAddress`,
    fields: [
      field("protocol", { enum: { TCP: 0, UDP: 1 } }),
      field("address", "string"),
      field("port_value", "uint32", "port_specifier"),
      field("named_port", "string", "port_specifier"),
      field("resolver_name", "string"),
      field("ipv4_compat", "bool"),
      field("network_namespace_filepath", "string"),
    ],
  },
  { name: `${CORE}.Pipe`, fields: [field("path", "string"), field("mode", "uint32")] },
  {
    name: `${CORE}.EnvoyInternalAddress`,
    fields: [field("server_listener_name", "string", "address_name_specifier"), field("endpoint_id", "string")],
  },
  {
    name: `${AUTH}.AttributeContext.Request`,
    fields: [field("time", "timestamp"), field("http", msg(`${AUTH}.AttributeContext.HttpRequest`))],
  },
  {
    name: `${AUTH}.AttributeContext.HttpRequest`,
    fields: [
      field("id", "string"),
      field("method", "string"),
      field("headers", strings),
      field("header_map", msg(`${CORE}.HeaderMap`)),
      field("path", "string"),
      field("host", "string"),
      field("scheme", "string"),
      field("query", "string"),
      field("fragment", "string"),
      field("size", "int64"),
      field("protocol", "string"),
      field("body", "string"),
      field("raw_body", "bytes"),
    ],
  },
  { name: `${CORE}.HeaderMap`, fields: [field("headers", { list: msg(HEADER_VALUE) })] },
  {
    name: HEADER_VALUE,
    fields: [field("key", "string"), field("value", "string"), field("raw_value", "bytes")],
  },
  {
    name: METADATA,
    fields: [field("filter_metadata", { map: "struct" }), field("typed_filter_metadata", { map: "any" })],
  },
  { name: `${AUTH}.AttributeContext.TLSSession`, fields: [field("sni", "string")] },
  // The responses a policy builds (envoy.Allowed(), envoy.Denied(code), … .Response()).
  {
    name: CHECK_RESPONSE,
    fields: [
      field("status", msg(RPC_STATUS)),
      field("denied_response", msg(DENIED_RESPONSE), "http_response"),
      field("ok_response", msg(OK_RESPONSE), "http_response"),
      field("error_response", msg(DENIED_RESPONSE), "http_response"),
      field("dynamic_metadata", "struct"),
    ],
  },
  {
    name: RPC_STATUS,
    fields: [field("code", "int32"), field("message", "string"), field("details", { list: "any" })],
  },
  {
    name: DENIED_RESPONSE,
    fields: [
      field("status", msg(HTTP_STATUS)),
      field("headers", { list: msg(HEADER_VALUE_OPTION) }),
      field("body", "string"),
    ],
  },
  // StatusCode's names are not read from payloads: Bylaw keeps the number only.
  { name: HTTP_STATUS, fields: [field("code", { enum: {} })] },
  {
    name: HEADER_VALUE_OPTION,
    fields: [
      field("header", msg(HEADER_VALUE)),
      field("append", "bool-value"),
      field("append_action", {
        enum: { APPEND_IF_EXISTS_OR_ADD: 0, ADD_IF_ABSENT: 1, OVERWRITE_IF_EXISTS_OR_ADD: 2, OVERWRITE_IF_EXISTS: 3 },
      }),
      field("keep_empty_value", "bool"),
    ],
  },
  {
    name: OK_RESPONSE,
    fields: [
      field("headers", { list: msg(HEADER_VALUE_OPTION) }),
      field("headers_to_remove", { list: "string" }),
      field("dynamic_metadata", "struct"),
      field("response_headers_to_add", { list: msg(HEADER_VALUE_OPTION) }),
      field("query_parameters_to_set", { list: msg(QUERY_PARAMETER) }),
      field("query_parameters_to_remove", { list: "string" }),
    ],
  },
  { name: QUERY_PARAMETER, fields: [field("key", "string"), field("value", "string")] },
];
