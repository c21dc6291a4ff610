/**
 * A small reader for the tar archives k8s-manifest-sigstore signs (Go's archive/tar output: ustar
 * headers, PAX `x` records for long names, GNU `L` long names). Regular files and directories only;
 * any other entry type is an error, as in k8s-manifest-sigstore's reader.
 */
import { utf8DecodeLossy } from "../jmespath/functions/kyverno/go-text.js";
interface TarFile {
  readonly name: string;
  readonly data: Uint8Array;
}

const BLOCK = 512;
const latin = (b: Uint8Array): string => String.fromCharCode(...b);

function field(h: Uint8Array, start: number, length: number): string {
  const bytes = h.subarray(start, start + length);
  const end = bytes.indexOf(0);
  return utf8DecodeLossy(end < 0 ? bytes : bytes.subarray(0, end));
}

function octal(h: Uint8Array, start: number, length: number): number | undefined {
  const first = h[start] ?? 0;
  if (first & 0x80) {
    // base-256 (GNU) for large sizes
    let n = first & 0x7f;
    for (let i = 1; i < length; i++) n = n * 256 + (h[start + i] ?? 0);
    return n;
  }
  const text = latin(h.subarray(start, start + length))
    .replace(/[\0 ]+$/g, "")
    .trim();
  if (text === "") return 0;
  return /^[0-7]+$/.test(text) ? parseInt(text, 8) : undefined;
}

function paxPath(data: Uint8Array): string | undefined {
  const text = utf8DecodeLossy(data);
  for (const line of text.split("\n")) {
    const m = /^\d+ path=(.*)$/s.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/** The regular files of a tar archive, or an error message. */
export function readTar(archive: Uint8Array): { ok: true; files: TarFile[] } | { ok: false; error: string } {
  const files: TarFile[] = [];
  let at = 0;
  let longName: string | undefined;
  while (at + BLOCK <= archive.length) {
    const h = archive.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) break;
    const size = octal(h, 124, 12);
    if (size === undefined) return { ok: false, error: "archive/tar: invalid tar header" };
    const type = String.fromCharCode(h[156] ?? 0);
    const dataStart = at + BLOCK;
    if (dataStart + size > archive.length) return { ok: false, error: "unexpected EOF" };
    const data = archive.subarray(dataStart, dataStart + size);
    at = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    const prefix = latin(h.subarray(257, 262)) === "ustar" ? field(h, 345, 155) : "";
    const name = longName ?? (prefix === "" ? field(h, 0, 100) : `${prefix}/${field(h, 0, 100)}`);
    if (type === "x") {
      longName = paxPath(data) ?? longName;
      continue;
    }
    if (type === "L") {
      longName = field(data, 0, data.length);
      continue;
    }
    if (type === "g") continue;
    longName = undefined;
    if (type === "0" || type === "\0" || type === "7") files.push({ name, data });
    else if (type !== "5")
      return { ok: false, error: `faced uknown type ${type} in ${name} while decompressing tar gz` };
  }
  return { ok: true, files };
}
