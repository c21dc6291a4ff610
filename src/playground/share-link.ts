/**
 * The playground's inputs in a URL fragment: JSON, deflated (fflate) and base64url-encoded behind a
 * version tag. A fragment never reaches a server: the browser keeps it.
 */
import { deflateSync, Inflate, strFromU8, strToU8 } from "fflate";

export interface PlaygroundInputs {
  /** Policies and PolicyExceptions: YAML or JSON, one or more documents. */
  readonly policies: string;
  /** The resources to check: YAML or JSON, one or more documents (a `kind: List` too). */
  readonly resources: string;
  /** A Kyverno values file (`globalValues`, `namespaceSelector`, `namespaces`), or empty. */
  readonly values: string;
}

const TAG = "v1.";
/** The most a link may inflate to: a link that would inflate further (a deflate bomb) is refused, not unpacked. */
const MAX_INFLATED = 16 * 1024 * 1024;

export function encodeInputs(inputs: PlaygroundInputs): string {
  const bytes = deflateSync(strToU8(JSON.stringify([inputs.policies, inputs.resources, inputs.values])), { level: 9 });
  return TAG + base64url(bytes);
}

/** The inputs a fragment (with or without its `#`) carries; an error says why it carries none. */
export function decodeInputs(
  fragment: string,
): { readonly ok: true; readonly inputs: PlaygroundInputs } | { readonly ok: false; readonly error: string } {
  const text = fragment.startsWith("#") ? fragment.slice(1) : fragment;
  if (!text.startsWith(TAG))
    return { ok: false, error: "the link holds no playground inputs (it should start with #v1.)" };
  try {
    const parsed: unknown = JSON.parse(strFromU8(inflateCapped(fromBase64url(text.slice(TAG.length)))));
    if (!Array.isArray(parsed) || parsed.length !== 3 || !parsed.every((p) => typeof p === "string"))
      return { ok: false, error: "the link's inputs are not three texts (policies, resources, values)" };
    const [policies, resources, values] = parsed as [string, string, string];
    return { ok: true, inputs: { policies, resources, values } };
  } catch (e) {
    return { ok: false, error: `the link's inputs cannot be read (cut short when copied?): ${(e as Error).message}` };
  }
}

/** The inflated bytes, stopping with an error past MAX_INFLATED. */
function inflateCapped(bytes: Uint8Array): Uint8Array {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const inflater = new Inflate((chunk) => {
    size += chunk.length;
    if (size > MAX_INFLATED) throw new Error(`it unpacks to more than ${MAX_INFLATED / 1024 / 1024} MiB`);
    chunks.push(chunk);
  });
  inflater.push(bytes, true);
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("it holds characters base64url has not");
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
