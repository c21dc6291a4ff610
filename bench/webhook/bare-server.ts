/**
 * The floor for the webhook bench: an HTTPS server that reads the body, parses the AdmissionReview
 * and answers "allowed" with the uid, nothing else. Run as a child process by bench/webhook/run.ts.
 * Usage: node bare-server.js CERT KEY PORT
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:https";

const [certPath, keyPath, port] = process.argv.slice(2);
if (certPath === undefined || keyPath === undefined || port === undefined) {
  process.stderr.write("usage: bare-server CERT KEY PORT\n");
  process.exit(2);
}
const server = createServer({ cert: readFileSync(certPath), key: readFileSync(keyPath) }, (req, res) => {
  if (req.method === "GET") {
    res.writeHead(200).end("ok");
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    let uid = "";
    try {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { request?: { uid?: string } };
      uid = review.request?.uid ?? "";
    } catch {
      res.writeHead(400).end();
      return;
    }
    const body = JSON.stringify({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid, allowed: true },
    });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
  });
});
server.listen(Number(port), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
