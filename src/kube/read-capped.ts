/** Reading an HTTP answer's body with a size cap, for the API client and the egress client. */
import type { IncomingMessage } from "node:http";

export const TOO_LARGE = Symbol("too large");

/** The body as text, TOO_LARGE once it passes `max` bytes (reading stops there), or the stream's error. */
export function readCapped(res: IncomingMessage, max: number): Promise<string | typeof TOO_LARGE | Error> {
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
    res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    res.on("error", (e) => resolve(e));
  });
}
