/** The HTTPS agent for a connection to the API server: its CA, client certificate, server name and TLS floor. */
import { Agent } from "node:https";
import type { KubeConnection } from "./types.js";

export function connectionAgent(c: KubeConnection, maxSockets: number): Agent {
  return new Agent({
    keepAlive: true,
    maxSockets,
    ...(c.ca !== undefined ? { ca: c.ca } : {}),
    ...(c.cert !== undefined ? { cert: c.cert } : {}),
    ...(c.key !== undefined ? { key: c.key } : {}),
    ...(c.tlsServerName !== undefined ? { servername: c.tlsServerName } : {}),
    rejectUnauthorized: c.insecureSkipTlsVerify !== true,
    minVersion: "TLSv1.2",
  });
}
