// A fault-injecting HTTP proxy in front of a real loci server, for the retry
// tests: loci cannot be made to answer 503 or 507 or drop a connection on
// demand, so the proxy does it for the requests it is told to, and forwards the
// rest.

import http from "node:http";

const UNAVAILABLE = '{"success":false,"error":"storage unreachable","code":"unavailable"}\n';
const STORAGE_FULL = '{"success":false,"error":"storage full: the disk has no space left","code":"storage_full"}\n';

export class FaultProxy {
  /** Each entry of faults ("503", "507" or "drop") is used up by one request, in order; seen lists every request. */
  constructor(upstream) {
    this.upstream = upstream;
    this.faults = [];
    this.seen = [];
    this.server = http.createServer(async (req, res) => {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      this.seen.push(`${req.method} ${req.url}`);
      const fault = this.faults.shift();
      if (fault === "drop") {
        req.socket.destroy();
        return;
      }
      if (fault === "503" || fault === "507") {
        res.writeHead(Number(fault), { "Content-Type": "application/json", "Retry-After": "0" });
        res.end(fault === "503" ? UNAVAILABLE : STORAGE_FULL);
        return;
      }
      const headers = {};
      for (const h of ["authorization", "content-type"]) if (req.headers[h]) headers[h] = req.headers[h];
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const r = await fetch(this.upstream + req.url, { method: req.method, headers, body });
      const out = Buffer.from(await r.arrayBuffer());
      const answer = { "Content-Type": r.headers.get("content-type") ?? "application/octet-stream" };
      if (r.headers.get("retry-after")) answer["Retry-After"] = r.headers.get("retry-after");
      res.writeHead(r.status, answer);
      res.end(out);
    });
  }

  async listen() {
    await new Promise((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${this.server.address().port}`;
    return this;
  }

  inject(...faults) {
    this.faults = faults;
    this.seen = [];
  }

  close() {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(resolve));
  }
}
