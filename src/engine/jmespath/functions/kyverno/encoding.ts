/** Encoding and hashing: base64 in pure TS, digests through the engine's Hasher port. */
import type { FunctionDef } from "../../types.js";
import { stringArg } from "./args.js";
import { base64Decode, base64Encode } from "./base64.js";
import { goError } from "./errors.js";
import { utf8DecodeLossy, utf8Encode } from "./go-text.js";

export const encodingFunctions: readonly FunctionDef[] = [
  {
    name: "base64_decode",
    args: [{ types: ["string"] }],
    returns: "string",
    description: "decodes a base 64 string",
    call: (args) => {
      const decoded = base64Decode(utf8Encode(stringArg("base64_decode", args, 0)));
      if (typeof decoded === "string") throw goError(decoded);
      return utf8DecodeLossy(decoded);
    },
  },
  {
    name: "base64_encode",
    args: [{ types: ["string"] }],
    returns: "string",
    description: "encodes a regular, plaintext and unencoded string to base64",
    call: (args) => base64Encode(utf8Encode(stringArg("base64_encode", args, 0))),
  },
  {
    name: "sha256",
    args: [{ types: ["string"] }],
    returns: "string",
    description: "generates the SHA-256 hash of a string, in hexadecimal",
    call: (args, ctx) => ctx.ports.hasher.sha256Hex(stringArg("sha256", args, 0)),
  },
  {
    name: "sha1",
    args: [{ types: ["string"] }],
    returns: "string",
    description: "generates the SHA-1 hash of a string, in hexadecimal",
    call: (args, ctx) => ctx.ports.hasher.sha1Hex(stringArg("sha1", args, 0)),
  },
  {
    name: "md5",
    args: [{ types: ["string"] }],
    returns: "string",
    description: "generates the MD5 hash of a string, in hexadecimal",
    call: (args, ctx) => ctx.ports.hasher.md5Hex(stringArg("md5", args, 0)),
  },
];
