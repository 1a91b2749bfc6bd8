// loci inspector, shared core: the API route table and client, the DOM
// helpers, the key's role, and the hash router every view registers with.
//
// Memories are untrusted input: every piece of text from the API reaches
// the page as a text node or a form value (el(), textContent), never as
// HTML. Plain JavaScript modules, no dependencies, nothing from another
// origin.

// ROUTES is every API call the page makes, written as the server
// registers it ("METHOD /pattern"). The Go tests match each one against
// the server's routes, so the page cannot drift from the API: keep every
// /v1 path in this table.
export const ROUTES = {
  whoami: "GET /v1/whoami",
  stats: "GET /v1/stats",
  listUsers: "GET /v1/users",
  listMemories: "GET /v1/memories",
  listAgents: "GET /v1/agents",
  getAgent: "GET /v1/agents/{agent_id}",
  listBlocks: "GET /v1/agents/{agent_id}/blocks",
  getBlock: "GET /v1/agents/{agent_id}/blocks/{label}",
  putBlock: "PUT /v1/agents/{agent_id}/blocks/{label}",
  blockHistory: "GET /v1/agents/{agent_id}/blocks/{label}/history",
  listConsumers: "GET /v1/blocks/{block_id}/consumers",
  attachBlock: "PUT /v1/blocks/{block_id}/consumers/{agent_id}",
  detachBlock: "DELETE /v1/blocks/{block_id}/consumers/{agent_id}",
  prompt: "GET /v1/agents/{agent_id}/prompt",
  listNotes: "GET /v1/agents/{agent_id}/notes",
  noteHistory: "GET /v1/agents/{agent_id}/notes/{key}/history",
  deleteNote: "DELETE /v1/agents/{agent_id}/notes/{key}",
  listPassages: "GET /v1/agents/{agent_id}/passages",
  deletePassage: "DELETE /v1/agents/{agent_id}/passages/{id}",
  userMemories: "GET /v1/users/{user_id}/memories",
  listPreferences: "GET /v1/users/{user_id}/preferences",
  deletePreference: "DELETE /v1/users/{user_id}/preferences/{type}",
  listSessions: "GET /v1/users/{user_id}/sessions",
  deleteSession: "DELETE /v1/sessions/{session_id}",
  deleteWorking: "DELETE /v1/tasks/{task_id}/working/{key}",
  deleteFact: "DELETE /v1/facts/{id}",
  deleteEpisode: "DELETE /v1/episodes/{id}",
  deleteUser: "DELETE /v1/users/{user_id}",
  exportUser: "GET /v1/export",
  getSession: "GET /v1/sessions/{session_id}",
  forgetUser: "POST /v1/users/{user_id}/forget",
  review: "GET /v1/users/{user_id}/review",
  resolveFact: "POST /v1/facts/{id}/resolve",
  resolvePreference: "POST /v1/users/{user_id}/preferences/{type}/resolve",
  search: "POST /v1/search",
  audit: "GET /v1/audit",
};

export const KINDS = ["note", "block", "passage", "working", "episode", "fact", "preference", "session"];
export const PAGE = 50;
const KEY_STORAGE = "loci.inspector.apiKey";

// ---- DOM helpers: text only ----

// el builds an element. props: "class", "on<event>" handlers, "value",
// "checked", "disabled", "hidden", anything else as an attribute.
// Children are nodes or strings; strings become text nodes.
export function el(tag, props, ...children) {
  const e = document.createElement(tag);
  setProps(e, props);
  append(e, children);
  return e;
}

// SVG_NS is the SVG namespace: a name, not a resource (nothing is fetched).
const SVG_NS = "http://www.w3.org/2000/svg";

// svg builds an SVG element (charts): attributes only, text as text nodes.
export function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) e.setAttribute(k, String(v));
  }
  append(e, children);
  return e;
}

function setProps(e, props) {
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "value" || k === "checked" || k === "disabled" || k === "hidden") e[k] = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
}

function append(e, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : String(c));
  }
}

export function $(id) {
  return document.getElementById(id);
}

export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

export function fmtTime(iso) {
  if (!iso || iso.startsWith("0001-01-01")) return "—";
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)/.exec(iso);
  return m ? m[1] + " " + m[2] + " UTC" : String(iso);
}

export function timeCell(iso) {
  return el("td", { class: "time", title: iso || "" }, fmtTime(iso));
}

// fmtValue shows a JSON value: strings as they are, anything else as
// indented JSON.
export function fmtValue(v) {
  if (typeof v === "string") return v;
  return JSON.stringify(v, null, 2);
}

export function num(x, digits) {
  return typeof x === "number" ? x.toFixed(digits === undefined ? 3 : digits) : "—";
}

// conf shows a kind's confidence: 0..100 scores as integers, 0..1 scores
// with two decimals.
export function conf(x) {
  if (typeof x !== "number") return "—";
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}

export function chars(s) {
  return Array.from(s).length;
}

export function badge(text, cls) {
  return el("span", { class: "badge " + (cls || "") }, text);
}

// metaBadges are a record's metadata as badges, one per top-level key
// ("topicName: food"); a value that is not a string shows as compact JSON,
// cut at 40 characters (the title holds it whole).
export function metaBadges(meta) {
  if (!meta || typeof meta !== "object" || Array.isArray(meta)) return [];
  return Object.keys(meta).map(function (k) {
    const v = meta[k];
    const text = typeof v === "string" ? v : JSON.stringify(v);
    const short = text.length > 40 ? text.slice(0, 39) + "…" : text;
    return el("span", { class: "badge meta", title: "metadata." + k + " = " + text, "data-meta-key": k }, k + ": " + short);
  });
}

// metaFilter reads a metadata filter box into loci's filter language:
// "topicName=food" is {"metadata.topicName": "food"}, several such
// separated by commas must all hold, a value that reads as JSON (5, true,
// null, "x") is that value, a path names a nested value (food.kind=veg);
// text starting with "{" is a filter in loci's language as is. null when
// empty; an Error naming the form when it is neither.
export function metaFilter(text) {
  text = (text || "").trim();
  if (!text) return null;
  if (text.startsWith("{")) {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new Error("the metadata filter is not valid JSON: " + e.message);
    }
  }
  const parts = text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)
    .map(function (p) {
      const i = p.indexOf("=");
      if (i <= 0) throw new Error("a metadata filter is key=value (topicName=food), several separated by commas, or a filter in JSON ({…})");
      const key = p.slice(0, i).trim().replace(/^metadata\./, "");
      const raw = p.slice(i + 1).trim();
      let value = raw;
      try {
        value = JSON.parse(raw);
      } catch (e) {
        value = raw;
      }
      return { ["metadata." + key]: value };
    });
  return parts.length === 1 ? parts[0] : { and: parts };
}

export function kindBadge(kind) {
  return badge(kind, "kind kind-" + kind);
}

// link is an in-page link to a view's hash.
export function link(hash, ...children) {
  return el("a", { href: hash }, children);
}

export function agentLink(id) {
  return link(hashFor("agents", id), el("code", null, id));
}

export function userLink(id) {
  return link(hashFor("users", id), el("code", null, id));
}

export function table(headers, rows, cls) {
  return el(
    "table",
    { class: cls || null },
    el("thead", null, el("tr", null, headers.map((h) => el("th", null, h)))),
    el("tbody", null, rows)
  );
}

export function muted(text) {
  return el("p", { class: "muted" }, text);
}

export function note(text) {
  return el("div", { class: "ok", role: "status" }, text);
}

export function pager(offset, count, limit, go) {
  if (count <= limit && offset === 0) return el("span", { class: "muted" }, count + " in all");
  const to = Math.min(offset + limit, count);
  return el(
    "span",
    null,
    el("button", { type: "button", disabled: offset === 0, onclick: () => go(Math.max(0, offset - limit)) }, "‹ Previous"),
    " ",
    (count === 0 ? 0 : offset + 1) + "–" + to + " of " + count + " ",
    el("button", { type: "button", disabled: to >= count, onclick: () => go(offset + limit) }, "Next ›")
  );
}

// scopeOf lists a record's scope as links: agent and user open their
// views.
export function scopeOf(m) {
  const out = [];
  if (m.agent_id) out.push(el("span", { class: "scope" }, "agent ", agentLink(m.agent_id)));
  if (m.user_id) out.push(el("span", { class: "scope" }, "user ", userLink(m.user_id)));
  if (m.session_id) out.push(el("span", { class: "scope" }, "session ", el("code", null, m.session_id)));
  if (m.task_id) out.push(el("span", { class: "scope" }, "task ", el("code", null, m.task_id)));
  return out.length ? out : [el("span", { class: "muted" }, "global")];
}

// ---- the API ----

export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// Stale is thrown by call() for an answer to a request made with a key
// the page no longer uses: nothing a previous key loaded may reach the
// page after a switch.
class Stale extends Error {}

export function apiKey() {
  try {
    return sessionStorage.getItem(KEY_STORAGE) || "";
  } catch (e) {
    return "";
  }
}

export function storeKey(v) {
  if (v) sessionStorage.setItem(KEY_STORAGE, v);
  else sessionStorage.removeItem(KEY_STORAGE);
}

// call makes one API call: route is a ROUTES entry, params fills its
// {wildcards} (each escaped as one path segment), opts.query adds query
// parameters (empty ones left out; arrays repeated), opts.body is sent as
// JSON. It answers the decoded JSON (or the text of a text/plain answer)
// and throws APIError on failure.
export async function call(route, params, opts) {
  opts = opts || {};
  const generation = session.generation;
  const space = route.indexOf(" ");
  const method = route.slice(0, space);
  let path = route.slice(space + 1).replace(/\{([a-z_]+)\}/g, function (_, name) {
    const v = params && params[name];
    if (v === undefined || v === null || v === "") throw new APIError(0, "invalid", "missing " + name);
    return encodeURIComponent(String(v));
  });
  if (opts.query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query)) {
      for (const one of Array.isArray(v) ? v : [v]) {
        if (one !== undefined && one !== null && one !== "") q.append(k, String(one));
      }
    }
    const qs = q.toString();
    if (qs) path += "?" + qs;
  }
  const headers = { Accept: "application/json, text/plain" };
  const key = apiKey();
  if (key) headers.Authorization = "Bearer " + key;
  let body;
  if (opts.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(opts.body);
  }
  let res;
  try {
    res = await fetch(path, { method: method, headers: headers, body: body, cache: "no-store", credentials: "omit" });
  } catch (e) {
    throw new APIError(0, "network", "cannot reach the loci server (" + e.message + ")");
  }
  const ctype = res.headers.get("Content-Type") || "";
  let data = null;
  try {
    data = ctype.startsWith("application/json") ? await res.json() : await res.text();
  } catch (e) {
    data = null;
  }
  if (generation !== session.generation) throw new Stale("the key changed");
  if (!res.ok) {
    const obj = data && typeof data === "object" ? data : {};
    throw new APIError(res.status, obj.code || "", obj.error || res.statusText || "request failed");
  }
  return data;
}

// describe turns an error into a sentence a person can act on.
export function describe(err) {
  if (!(err instanceof APIError)) return "Unexpected error: " + err.message;
  const said = err.message;
  switch (err.status) {
    case 0:
      return err.code === "network" ? "Cannot reach the server: " + said : said;
    case 401:
      return apiKey()
        ? "401 Unauthorized: the server refused the API key (" + said + "). Paste a valid key above."
        : "401 Unauthorized: this server requires an API key. Paste one in the API key field above. (" + said + ")";
    case 403:
      return "403 Forbidden: this API key may not do that (" + said + ").";
    case 404:
      return "404 Not found: " + said;
    case 409:
      return "409 Conflict: " + said + ".";
    case 413:
      return "413 Too large: " + said;
    case 429:
      return "429 Too many requests: " + said;
    default:
      return err.status + " " + (err.code || "error") + ": " + said;
  }
}

// errorBox is the message for a failed call, shown where the call was
// made. A 401 concerns the whole page: it is explained once, in the banner
// under the header, and the API key field is highlighted.
export function errorBox(err) {
  if (err instanceof Stale) return null;
  const auth = err instanceof APIError && (err.status === 401 || err.status === 403);
  if (auth && err.status === 401) {
    $("key-input").classList.add("attention");
    fill($("banner"), describe(err));
    $("banner").hidden = false;
    return el("div", { class: "error auth" }, "401 Unauthorized: needs a valid API key (see above).");
  }
  return el("div", { class: "error" + (auth ? " auth" : ""), role: "alert" }, describe(err));
}

// load fills node with "loading", runs fn, and shows its error in node.
// An answer for a previous key is dropped.
export async function load(node, fn) {
  fill(node, el("p", { class: "muted" }, "Loading…"));
  try {
    await fn();
  } catch (err) {
    if (err instanceof Stale) return;
    fill(node, errorBox(err));
  }
}

// action runs fn for a button: disabled while it runs, its error shown in
// msg (a Stale answer is dropped).
export async function action(button, msg, fn) {
  if (button) button.disabled = true;
  if (msg) fill(msg);
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof Stale) && msg) fill(msg, errorBox(err));
  } finally {
    if (button && button.isConnected) button.disabled = false;
  }
}

// ---- changes ----

const CHANGED = "loci:changed";

// changed tells the views that records were deleted or written from this
// page, so that each reads again the counts and lists it shows (a view
// shown earlier, such as the overview, is kept while hidden, and would
// otherwise go on showing what was there before).
export function changed() {
  document.dispatchEvent(new Event(CHANGED));
}

// onChange calls fn after each change while node is in the page; once the
// node is replaced, it stops.
export function onChange(node, fn) {
  const listener = function () {
    if (node.isConnected) fn();
    else document.removeEventListener(CHANGED, listener);
  };
  document.addEventListener(CHANGED, listener);
}

// ---- the key: its role and agent ----

const ROLES = ["viewer", "creator", "editor", "admin"];

// session is what the current key may do (whoami) and a generation that
// changes with the key, so that answers for an old key are dropped.
export const session = { who: null, generation: 0 };

// can reports whether the key holds at least role (before whoami answers,
// nothing is allowed).
export function can(role) {
  const who = session.who;
  return !!who && ROLES.indexOf(who.role) >= ROLES.indexOf(role);
}

// boundAgent is the agent the key is bound to, or "".
export function boundAgent() {
  return (session.who && session.who.agent_id) || "";
}

// needs marks a control the key may not use: disabled, with the reason as
// its title. It returns the control.
export function needs(control, role, unboundOnly) {
  let why = "";
  if (!can(role)) why = "needs the " + role + " role";
  else if (unboundOnly && boundAgent()) why = "a key bound to an agent cannot do this";
  if (why) {
    control.disabled = true;
    control.title = why;
    control.classList.add("not-allowed");
  }
  return control;
}

// ---- views and the hash router ----
//
// The hash names the view and what it shows, so a view can be reloaded
// and linked to: #{view}[/{argument}][?{filters}], e.g.
// #agents/writer, #users/u-42, #timeline?agent=writer&kinds=fact,
// #search/tea?user=u-42&kinds=fact,preference.

const views = {};
const order = [];

// register adds a view: { show(arg, params), reset() }; show runs when
// its hash is shown, reset when the key changes.
export function register(name, view) {
  views[name] = view;
  order.push(name);
}

export function hashFor(view, arg, params) {
  let h = "#" + view;
  if (arg) h += "/" + encodeURIComponent(arg);
  if (params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) {
      if (v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0)) continue;
      q.set(k, Array.isArray(v) ? v.join(",") : String(v));
    }
    const qs = q.toString();
    if (qs) h += "?" + qs;
  }
  return h;
}

export function parseHash() {
  let h = location.hash.replace(/^#/, "");
  let query = "";
  const qi = h.indexOf("?");
  if (qi >= 0) {
    query = h.slice(qi + 1);
    h = h.slice(0, qi);
  }
  const slash = h.indexOf("/");
  const name = slash < 0 ? h : h.slice(0, slash);
  let arg = "";
  if (slash >= 0) {
    try {
      arg = decodeURIComponent(h.slice(slash + 1));
    } catch (e) {
      arg = "";
    }
  }
  return { view: name, arg: arg, params: new URLSearchParams(query) };
}

// listParam reads a comma-separated filter ("kinds=fact,note").
export function listParam(params, name) {
  return (params.get(name) || "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

// navigate shows hash, or routes again at once when it is already shown
// (so that submitting the same form again reloads).
export function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

// defaultView is where a bare page lands: a key bound to an agent on its
// agent, any other on the overview.
function defaultView() {
  const a = boundAgent();
  return a ? hashFor("agents", a) : "#overview";
}

export function route() {
  const r = parseHash();
  if (!views[r.view]) {
    location.replace(defaultView());
    return;
  }
  for (const name of order) $("view-" + name).hidden = name !== r.view;
  for (const a of document.querySelectorAll("#tabs a")) a.classList.toggle("current", a.dataset.tab === r.view);
  views[r.view].show(r.arg, r.params);
}

// resetViews empties every view, for a new key.
export function resetViews() {
  for (const name of order) views[name].reset();
}

export function currentView() {
  return parseHash().view;
}

// landing is the hash to show after the key changed: a key bound to an
// agent lands on its agent; any other stays where the page is.
export function landing() {
  if (boundAgent() || !views[parseHash().view]) return defaultView();
  return location.hash;
}
