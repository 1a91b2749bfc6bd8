// The browser tests' harness: a real `loci serve` on a free port with a
// temporary database (keys made with `loci keys create`, data written
// over REST), and the system's Chromium driven by playwright-core. No
// browser is downloaded: Chromium is the one `command -v chromium` finds.
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));

// CHROMIUM_ARGS are the launch flags of a CI machine: headless, no
// sandbox (containers), nothing fetched in the background.
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

// chromiumPath is the system's Chromium: $CHROMIUM, else `command -v
// chromium`.
function chromiumPath() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  const found = spawnSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" });
  const path = (found.stdout || "").trim().split("\n")[0];
  if (!path) throw new Error("no chromium on PATH: install it (apt-get install -y chromium) or set CHROMIUM");
  return path;
}

// lociBin is the loci binary under test: $LOCI_BIN, else bin/loci of the
// repository (`make build`).
function lociBin() {
  const bin = resolve(process.env.LOCI_BIN || join(here, "..", "..", "bin", "loci"));
  if (!existsSync(bin)) throw new Error("no loci binary at " + bin + ": run `make build` or set LOCI_BIN");
  return bin;
}

// Env is one run: the server, its keys, a browser, and the folder the
// screenshots go to.
export class Env {
  async start() {
    this.bin = lociBin();
    this.dir = mkdtempSync(join(process.env.TMPDIR || tmpdir(), "loci-inspector-"));
    this.db = join(this.dir, "loci.db");
    this.shots = join(this.dir, "screenshots");
    mkdirSync(this.shots);
    // Keys first: the server then requires one from its first request.
    this.keys = {
      admin: this.makeKey("admin"),
      editor: this.makeKey("editor"),
      viewer: this.makeKey("viewer"),
      bound: this.makeKey("editor", "writer"),
    };
    await this.serve();
    this.browser = await chromium.launchPersistentContext(join(this.dir, "chromium-profile"), {
      executablePath: chromiumPath(),
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 1000 },
    });
  }

  makeKey(role, agent) {
    const args = ["keys", "create", "--role", role, "--db", this.db, "--name", "e2e " + role];
    if (agent) args.push("--agent", agent);
    return execFileSync(this.bin, args, { encoding: "utf8" }).trim();
  }

  serve() {
    return new Promise((ok, fail) => {
      this.server = spawn(this.bin, ["serve", "--addr", "127.0.0.1:0", "--db", this.db], { stdio: ["ignore", "pipe", "pipe"] });
      this.serverLog = "";
      let out = "";
      const timer = setTimeout(() => fail(new Error("loci serve did not start:\n" + this.serverLog)), 30000);
      this.server.stderr.on("data", (b) => (this.serverLog += b));
      this.server.stdout.on("data", (b) => {
        out += b;
        const m = /loci listening on (http\S+)/.exec(out);
        if (m && !this.base) {
          clearTimeout(timer);
          this.base = m[1];
          ok();
        }
      });
      this.server.on("exit", (code) => {
        if (!this.base) {
          clearTimeout(timer);
          fail(new Error("loci serve exited with " + code + ":\n" + this.serverLog));
        }
      });
    });
  }

  // stop ends the browser and the server and removes all but the
  // screenshots.
  async stop() {
    if (this.browser) await this.browser.close();
    if (this.server) {
      if (this.server.exitCode === null) {
        const exited = new Promise((ok) => this.server.on("exit", ok));
        this.server.kill("SIGTERM");
        await exited;
      }
    }
    if (this.dir) {
      for (const name of ["chromium-profile", "loci.db", "loci.db-wal", "loci.db-shm"]) rmSync(join(this.dir, name), { recursive: true, force: true });
    }
  }

  // api calls the REST API with a key (admin by default) and answers
  // {status, body}.
  async api(method, path, body, key) {
    const res = await fetch(this.base + path, {
      method: method,
      headers: { Authorization: "Bearer " + (key || this.keys.admin), "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch (e) {
      json = text;
    }
    return { status: res.status, body: json };
  }

  // must is api that fails unless the status is a success.
  async must(method, path, body) {
    const r = await this.api(method, path, body);
    if (r.status >= 300) throw new Error(method + " " + path + " answered " + r.status + ": " + JSON.stringify(r.body));
    return r.body;
  }

  // page opens a fresh tab that records every console error and page
  // error; an error for a failed request is expected only when the test
  // said so (expectHTTP).
  async page() {
    const page = await this.browser.newPage();
    page.problems = [];
    page.expected = [];
    page.failed = [];
    page.on("dialog", (d) => d.accept());
    page.on("pageerror", (e) => page.problems.push("page error: " + e.message));
    page.on("response", (r) => {
      if (r.status() >= 400) page.failed.push({ status: r.status(), url: r.url() });
    });
    page.on("console", (msg) => {
      if (msg.type() !== "error") return;
      const url = (msg.location() && msg.location().url) || "";
      const m = /status of (\d+)/.exec(msg.text());
      if (m && page.expected.some((x) => x.status === Number(m[1]) && url.includes(x.path))) return;
      page.problems.push("console error: " + msg.text() + (url ? " (" + url + ")" : ""));
    });
    return page;
  }

  // screenshot writes the page to the screenshot folder.
  async screenshot(page, name) {
    const path = join(this.shots, name + ".png");
    await page.screenshot({ path: path, fullPage: true });
    return path;
  }
}

// expectHTTP says that a request whose URL holds path may fail with
// status (the browser logs such failures as console errors).
export function expectHTTP(page, status, path) {
  page.expected.push({ status: status, path: path });
}

// useKey pastes a key into the page and waits until the page knows its
// role.
export async function useKey(page, key, role) {
  await page.fill("#key-input", key);
  await page.click("#key-form button[type=submit]");
  if (role) await page.locator("#who .badge", { hasText: "role " + role }).waitFor();
}

// open loads the page at hash with key already in the tab's storage, as
// the key form leaves it (the form itself is tested by useKey).
export async function open(env, page, hash, key, role) {
  // The origin without the page: the icon. Chromium asks for
  // /favicon.ico for a document that names none (the page names its own).
  expectHTTP(page, 404, "/favicon.ico");
  await page.goto(env.base + "/ui/favicon.svg");
  await page.evaluate((k) => sessionStorage.setItem("loci.inspector.apiKey", k), key);
  await page.goto(env.base + "/" + hash);
  if (role) await page.locator("#who .badge", { hasText: "role " + role }).waitFor();
}
