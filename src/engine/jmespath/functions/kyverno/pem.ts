/** Go's `encoding/pem.Decode`: the first well-formed PEM block in the text. */
import { base64Decode } from "./base64.js";
import { utf8Encode } from "./go-text.js";

interface PemBlock {
  readonly type: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly bytes: Uint8Array;
}

/** One line without its newline (and a trailing CR), right-trimmed of spaces and tabs. */
function getLine(data: string): [string, string] {
  const nl = data.indexOf("\n");
  if (nl < 0) return [data.replace(/[ \t]+$/, ""), ""];
  const end = nl > 0 && data[nl - 1] === "\r" ? nl - 1 : nl;
  return [data.slice(0, end).replace(/[ \t]+$/, ""), data.slice(nl + 1)];
}

export function decodePem(data: string): PemBlock | undefined {
  let rest = data;
  for (;;) {
    if (rest.startsWith("-----BEGIN ")) rest = rest.slice("-----BEGIN ".length);
    else {
      const at = rest.indexOf("\n-----BEGIN ");
      if (at < 0) return undefined;
      rest = rest.slice(at + "\n-----BEGIN ".length);
    }
    let typeLine: string;
    [typeLine, rest] = getLine(rest);
    if (!typeLine.endsWith("-----")) continue;
    typeLine = typeLine.slice(0, -5);

    const headers: Record<string, string> = {};
    let truncated = false;
    for (;;) {
      if (rest.length === 0) {
        truncated = true;
        break;
      }
      const [line, next] = getLine(rest);
      const colon = line.indexOf(":");
      if (colon < 0) break;
      headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
      rest = next;
    }
    if (truncated) return undefined;

    let endIndex: number;
    let trailerIndex: number;
    if (Object.keys(headers).length === 0 && rest.startsWith("-----END ")) {
      endIndex = 0;
      trailerIndex = "-----END ".length;
    } else {
      endIndex = rest.indexOf("\n-----END ");
      trailerIndex = endIndex + "\n-----END ".length;
    }
    if (endIndex < 0) continue;
    const trailer = rest.slice(trailerIndex);
    const trailerLen = typeLine.length + 5;
    if (trailer.length < trailerLen) continue;
    const endLine = trailer.slice(0, trailerLen);
    if (!endLine.startsWith(typeLine) || !endLine.endsWith("-----")) continue;
    if (getLine(trailer.slice(trailerLen))[0].length !== 0) continue;

    const body = rest.slice(0, endIndex).replace(/[ \t]/g, "");
    const bytes = base64Decode(utf8Encode(body));
    if (typeof bytes === "string") continue;
    return { type: typeLine, headers, bytes };
  }
}
