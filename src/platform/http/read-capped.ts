/** Reading an HTTP answer's body with a size cap, for the API client, the egress client and the registry client. */
import type { IncomingMessage } from "node:http";

export const TOO_LARGE = Symbol("too large");

/** The body's bytes, TOO_LARGE once it passes `max` bytes (reading stops there), or the stream's error. */
export function readCappedBytes(res: IncomingMessage, max: number): Promise<Buffer | typeof TOO_LARGE | Error> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on("data", (c: Buffer) => {
      size += c.length;
      if (size > max) {
        res.destroy();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(c);
    });
    res.on("end", () => resolve(Buffer.concat(chunks)));
    res.on("error", (e) => resolve(e));
  });
}

/** The body as UTF-8 text, TOO_LARGE once it passes `max` bytes (reading stops there), or the stream's error. */
export async function readCapped(res: IncomingMessage, max: number): Promise<string | typeof TOO_LARGE | Error> {
  const body = await readCappedBytes(res, max);
  return Buffer.isBuffer(body) ? body.toString("utf8") : body;
}
