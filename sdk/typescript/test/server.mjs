// A real `loci serve` for the tests: built once per test process (or
// $LOCI_BIN), started on a port the system chooses with a temporary
// database, stopped and removed afterwards.

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const SDK = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const REPO = resolve(SDK, "..", "..");

let built;

/** The loci binary: $LOCI_BIN, else built from this checkout. */
export function lociBinary() {
  if (process.env.LOCI_BIN) return process.env.LOCI_BIN;
  if (!built) {
    const dir = mkdtempSync(join(tmpdir(), "loci-sdk-bin-"));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    built = join(dir, "loci");
    execFileSync("go", ["build", "-o", built, "./cmd/loci"], { cwd: REPO, stdio: "inherit" });
  }
  return built;
}

function serverEnv() {
  const env = { ...process.env };
  for (const k of ["LOCI_DB", "LOCI_EMBEDDER", "LOCI_EMBED_URL", "LOCI_URL", "LOCI_API_KEY"]) delete env[k];
  return env;
}

/** Server is one `loci serve` on 127.0.0.1 on a fresh SQLite file. */
export class Server {
  constructor(...flags) {
    this.flags = flags;
    this.dir = mkdtempSync(join(tmpdir(), "loci-sdk-"));
    this.db = join(this.dir, "loci.db");
    this.url = undefined;
    this.log = "";
  }

  /** Run a loci verb on this server's database; its stdout. */
  run(...args) {
    return execFileSync(lociBinary(), [...args, "--db", this.db], { env: serverEnv(), stdio: ["ignore", "pipe", "pipe"] })
      .toString()
      .trim();
  }

  /** A new API key with role (bound to agent if given); creating one turns authentication on. */
  createKey(role, agent) {
    return this.run("keys", "create", "--role", role, ...(agent ? ["--agent", agent] : []));
  }

  async start() {
    this.proc = spawn(lociBinary(), ["serve", "--addr", "127.0.0.1:0", "--db", this.db, ...this.flags], {
      env: serverEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.proc.stderr.on("data", (d) => (this.log += d));
    this.url = await new Promise((resolveUrl, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error("loci serve did not start:\n" + this.log)), 120_000);
      this.proc.stdout.on("data", (d) => {
        out += d;
        const m = /loci listening on (\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolveUrl(m[1]);
        }
      });
      this.proc.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`loci serve exited (${code}):\n${this.log}`));
      });
    });
    for (let i = 0; ; i++) {
      try {
        const r = await fetch(this.url + "/readyz");
        if (r.ok) return this;
      } catch {
        // not yet
      }
      if (i > 2400) throw new Error("loci serve is not ready:\n" + this.log);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop() {
    if (this.proc && this.proc.exitCode === null) {
      const exited = new Promise((r) => this.proc.once("exit", r));
      this.proc.kill("SIGTERM");
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
