// loci inspector: browse and edit memories through loci's REST API.
//
// Memories are untrusted input: every piece of text from the API reaches
// the page as a text node or a form value (el(), textContent), never as
// HTML. Plain JavaScript, no dependencies, nothing from another origin.
"use strict";

(function () {
  // ROUTES is every API call the page makes, written as the server
  // registers it ("METHOD /pattern"). The Go tests match each one against
  // the server's routes, so the page cannot drift from the API: keep
  // every /v1 path in this table.
  const ROUTES = {
    listAgents: "GET /v1/agents",
    listBlocks: "GET /v1/agents/{agent_id}/blocks",
    putBlock: "PUT /v1/agents/{agent_id}/blocks/{label}",
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
    getSession: "GET /v1/sessions/{session_id}",
    forgetUser: "POST /v1/users/{user_id}/forget",
    search: "POST /v1/search",
    audit: "GET /v1/audit",
  };

  const KINDS = ["note", "block", "passage", "working", "episode", "fact", "preference", "session"];
  const KEY_STORAGE = "loci.inspector.apiKey";
  const PAGE = 50;

  // ---- DOM helpers: text only ----

  // el builds an element. props: "class", "on<event>" handlers, "value",
  // "checked", "disabled", "hidden", anything else as an attribute.
  // Children are nodes or strings; strings become text nodes.
  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "value" || k === "checked" || k === "disabled" || k === "hidden") e[k] = v;
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }

  function $(id) {
    return document.getElementById(id);
  }

  function fill(node, ...children) {
    node.replaceChildren();
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : String(c));
    }
  }

  function fmtTime(iso) {
    if (!iso || iso.startsWith("0001-01-01")) return "—";
    const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)/.exec(iso);
    return m ? m[1] + " " + m[2] + " UTC" : String(iso);
  }

  function timeCell(iso) {
    return el("td", { class: "time", title: iso || "" }, fmtTime(iso));
  }

  // fmtValue shows a JSON value: strings as they are, anything else as
  // indented JSON.
  function fmtValue(v) {
    if (typeof v === "string") return v;
    return JSON.stringify(v, null, 2);
  }

  function num(x, digits) {
    return typeof x === "number" ? x.toFixed(digits === undefined ? 3 : digits) : "—";
  }

  // conf shows a kind's confidence: 0..100 scores as integers, 0..1
  // scores with two decimals.
  function conf(x) {
    if (typeof x !== "number") return "—";
    return Number.isInteger(x) ? String(x) : x.toFixed(2);
  }

  function chars(s) {
    return Array.from(s).length;
  }

  function badge(text, cls) {
    return el("span", { class: "badge " + (cls || "") }, text);
  }

  // ---- the API ----

  class APIError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  function apiKey() {
    try {
      return sessionStorage.getItem(KEY_STORAGE) || "";
    } catch (e) {
      return "";
    }
  }

  // call makes one API call: route is a ROUTES entry, params fills its
  // {wildcards} (each escaped as one path segment), opts.query adds query
  // parameters (empty ones left out), opts.body is sent as JSON. It
  // answers the decoded JSON (or the text of a text/plain answer) and
  // throws APIError on failure.
  async function call(route, params, opts) {
    opts = opts || {};
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
        if (v !== undefined && v !== null && v !== "") q.append(k, String(v));
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
    if (!res.ok) {
      const obj = data && typeof data === "object" ? data : {};
      throw new APIError(res.status, obj.code || "", obj.error || res.statusText || "request failed");
    }
    return data;
  }

  // describe turns an error into a sentence a person can act on.
  function describe(err) {
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
        return "409 Conflict: " + said + ". Someone changed it since you loaded it: reload, then edit again.";
      case 413:
        return "413 Too large: " + said;
      case 429:
        return "429 Too many requests: " + said;
      default:
        return err.status + " " + (err.code || "error") + ": " + said;
    }
  }

  // errorBox is the message for a failed call, shown where the call was
  // made. A 401 concerns the whole page: it is explained once, in the
  // banner under the header, and the API key field is highlighted.
  function errorBox(err) {
    const auth = err instanceof APIError && (err.status === 401 || err.status === 403);
    if (auth && err.status === 401) {
      $("key-input").classList.add("attention");
      fill($("banner"), describe(err));
      $("banner").hidden = false;
      return el("div", { class: "error auth" }, "401 Unauthorized: needs a valid API key (see above).");
    }
    return el("div", { class: "error" + (auth ? " auth" : ""), role: "alert" }, describe(err));
  }

  function note(text) {
    return el("div", { class: "ok", role: "status" }, text);
  }

  // load fills node with "loading", runs fn, and shows its error in node.
  async function load(node, fn) {
    fill(node, el("p", { class: "muted" }, "Loading…"));
    try {
      await fn();
    } catch (err) {
      fill(node, errorBox(err));
    }
  }

  function pager(offset, count, limit, go) {
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

  function table(headers, rows) {
    return el(
      "table",
      null,
      el("thead", null, el("tr", null, headers.map((h) => el("th", null, h)))),
      el("tbody", null, rows)
    );
  }

  // ---- the API key ----

  function showKeyState() {
    const key = apiKey();
    fill($("key-state"), key ? "key set for this tab" : "no key: requests are sent without one");
    $("key-forget").disabled = !key;
  }

  function setupKey() {
    $("key-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      const v = $("key-input").value.trim();
      try {
        if (v) sessionStorage.setItem(KEY_STORAGE, v);
      } catch (e) {
        fill($("key-state"), "cannot store the key: " + e.message);
        return;
      }
      $("key-input").value = "";
      $("key-input").classList.remove("attention");
      $("banner").hidden = true;
      showKeyState();
      reloadTab();
    });
    $("key-forget").addEventListener("click", function () {
      try {
        sessionStorage.removeItem(KEY_STORAGE);
      } catch (e) {
        /* nothing stored */
      }
      $("banner").hidden = true;
      showKeyState();
      reloadTab();
    });
    showKeyState();
  }

  // ---- agents ----

  let agentsOffset = 0;
  let currentAgent = "";

  async function loadAgents() {
    const list = $("agents-list");
    const msg = $("agents-msg");
    fill(msg);
    fill($("agents-pager"));
    await load(list, async function () {
      const data = await call(ROUTES.listAgents, null, { query: { limit: PAGE, offset: agentsOffset } });
      const agents = data.agents || [];
      fill(
        list,
        agents.length === 0 ? el("li", { class: "muted" }, "No agents yet.") : null,
        agents.map((a) =>
          el(
            "li",
            null,
            el(
              "button",
              {
                type: "button",
                class: "pick" + (a.id === currentAgent ? " current" : ""),
                onclick: () => navigate("#agents/" + encodeURIComponent(a.id), () => showAgent(a.id)),
              },
              el("span", { class: "id" }, a.id),
              a.name && a.name !== a.id ? el("span", { class: "muted" }, " " + a.name) : null
            )
          )
        )
      );
      fill(
        $("agents-pager"),
        pager(agentsOffset, data.count || 0, PAGE, function (o) {
          agentsOffset = o;
          loadAgents();
        })
      );
    });
  }

  function showAgent(id) {
    currentAgent = id;
    for (const b of document.querySelectorAll("#agents-list .pick")) {
      b.classList.toggle("current", b.querySelector(".id").textContent === id);
    }
    const blocks = el("div");
    const prompt = el("div");
    const notes = el("div");
    const passages = el("div");
    fill(
      $("agent-detail"),
      el("h2", null, "Agent ", el("code", null, id)),
      el("h3", null, "Core memory blocks"),
      blocks,
      el("h3", null, "Rendered prompt"),
      prompt,
      el("h3", null, "Notes"),
      notes,
      el("h3", null, "Archival passages"),
      passages
    );
    const reloadPrompt = () => loadPrompt(prompt, id);
    loadBlocks(blocks, id, reloadPrompt);
    reloadPrompt();
    loadNotes(notes, id);
    loadPassages(passages, id, 0);
  }

  function loadBlocks(node, agent, reloadPrompt) {
    return load(node, async function () {
      const data = await call(ROUTES.listBlocks, { agent_id: agent });
      const blocks = data.blocks || [];
      fill(node, blocks.length === 0 ? el("p", { class: "muted" }, "No blocks.") : blocks.map((b) => blockCard(node, agent, b, reloadPrompt)));
    });
  }

  function blockCard(node, agent, b, reloadPrompt) {
    const area = el("textarea", { rows: Math.min(12, Math.max(3, b.content.split("\n").length + 1)), spellcheck: "false" });
    area.value = b.content;
    const counter = el("span", { class: "muted" });
    const ver = el("span", { class: "muted" }, "version " + b.version);
    const updated = el("span", { class: "muted small" }, "updated " + fmtTime(b.updated_at));
    const msg = el("div");
    const count = () => {
      const n = chars(area.value);
      fill(counter, n + " / " + b.limit + " characters");
      counter.classList.toggle("over", b.limit > 0 && n > b.limit);
    };
    area.addEventListener("input", count);
    count();
    const save = el("button", { type: "button" }, "Save");
    save.addEventListener("click", async function () {
      save.disabled = true;
      fill(msg);
      try {
        const res = await call(ROUTES.putBlock, { agent_id: agent, label: b.label }, { body: { content: area.value, expected_version: b.version } });
        b.version = res.version;
        b.content = res.content;
        fill(msg, note("Saved: version " + res.version + "."));
        fill(ver, "version " + res.version);
        fill(updated, "updated " + fmtTime(res.updated_at));
        reloadPrompt();
      } catch (err) {
        fill(msg, errorBox(err));
      } finally {
        save.disabled = false;
      }
    });
    const revert = el("button", {
      type: "button",
      onclick: () => {
        area.value = b.content;
        count();
        fill(msg);
      },
    }, "Revert");
    const reload = el("button", { type: "button", onclick: () => loadBlocks(node, agent, reloadPrompt) }, "Reload blocks");
    return el(
      "div",
      { class: "card" },
      el(
        "div",
        { class: "row" },
        el("strong", null, b.label),
        ver,
        b.is_shared ? badge("shared, owned by " + b.owner_agent_id, "shared") : null,
        el("span", { class: "muted small", title: "block id" }, b.id)
      ),
      area,
      el("div", { class: "row" }, save, revert, reload, counter, updated),
      msg
    );
  }

  function loadPrompt(node, agent) {
    return load(node, async function () {
      const text = await call(ROUTES.prompt, { agent_id: agent });
      fill(node, el("pre", { class: "prompt" }, typeof text === "string" && text !== "" ? text : "(empty)"));
    });
  }

  function loadNotes(node, agent) {
    return load(node, async function () {
      const data = await call(ROUTES.listNotes, { agent_id: agent });
      const notes = data.memories || [];
      if (notes.length === 0) {
        fill(node, el("p", { class: "muted" }, "No notes."));
        return;
      }
      const rows = [];
      for (const n of notes) {
        const history = el("tr", { class: "history", hidden: true }, el("td", { colspan: 4 }));
        const msg = el("div");
        const histBtn = el("button", { type: "button" }, "History");
        histBtn.addEventListener("click", function () {
          history.hidden = !history.hidden;
          if (!history.hidden) loadHistory(history.firstChild, agent, n.key);
        });
        const del = el("button", { type: "button", class: "danger" }, "Delete");
        del.addEventListener("click", async function () {
          if (!confirm("Delete note “" + n.key + "” of agent " + agent + " and its history?")) return;
          try {
            await call(ROUTES.deleteNote, { agent_id: agent, key: n.key });
            loadNotes(node, agent);
          } catch (err) {
            fill(msg, errorBox(err));
          }
        });
        rows.push(
          el(
            "tr",
            null,
            el("td", null, el("code", null, n.key)),
            el("td", null, el("pre", { class: "value" }, fmtValue(n.value)), msg),
            timeCell(n.updated_at),
            el("td", { class: "actions" }, histBtn, " ", del)
          ),
          history
        );
      }
      fill(node, el("p", { class: "muted" }, data.count + " notes"), table(["key", "value", "updated", ""], rows));
    });
  }

  function loadHistory(cell, agent, key) {
    return load(cell, async function () {
      const data = await call(ROUTES.noteHistory, { agent_id: agent, key: key });
      const versions = data.versions || [];
      fill(
        cell,
        el(
          "ol",
          { class: "versions" },
          versions.map((v, i) =>
            el(
              "li",
              null,
              el("span", { class: "muted" }, "version " + v.version + " · " + fmtTime(v.updated_at) + (i === 0 ? " · current" : "")),
              el("pre", { class: "value" }, fmtValue(v.value))
            )
          )
        )
      );
    });
  }

  function loadPassages(node, agent, offset) {
    return load(node, async function () {
      const data = await call(ROUTES.listPassages, { agent_id: agent }, { query: { limit: PAGE, offset: offset } });
      const passages = data.passages || [];
      if ((data.count || 0) === 0) {
        fill(node, el("p", { class: "muted" }, "No passages."));
        return;
      }
      const rows = passages.map(function (p) {
        const msg = el("div");
        const del = el("button", { type: "button", class: "danger" }, "Delete");
        del.addEventListener("click", async function () {
          if (!confirm("Delete this passage of agent " + agent + "?")) return;
          try {
            await call(ROUTES.deletePassage, { agent_id: agent, id: p.id });
            loadPassages(node, agent, offset);
          } catch (err) {
            fill(msg, errorBox(err));
          }
        });
        return el(
          "tr",
          null,
          el("td", null, el("div", { class: "content" }, p.content), msg),
          el("td", null, (p.tags || []).map((t) => badge(t, "tag"))),
          timeCell(p.created_at),
          el("td", { class: "actions" }, del)
        );
      });
      fill(
        node,
        el("div", { class: "pager" }, pager(offset, data.count, PAGE, (o) => loadPassages(node, agent, o))),
        table(["content", "tags", "created", ""], rows)
      );
    });
  }

  // ---- users ----

  function showUser(user) {
    shownUser = user;
    const forget = el("div");
    const prefs = el("div");
    const sessions = el("div");
    const mems = el("div");
    fill(
      $("user-detail"),
      el("h2", null, "User ", el("code", null, user)),
      el("h3", null, "Forget by query"),
      forget,
      el("h3", null, "Preferences"),
      prefs,
      el("h3", null, "Sessions"),
      sessions,
      el("h3", null, "Everything loci remembers, by kind"),
      mems
    );
    const reloadAll = function () {
      loadPreferences(prefs, user);
      loadSessions(sessions, user, 0);
      loadUserMemories(mems, user);
    };
    forgetForm(forget, user, reloadAll);
    reloadAll();
  }

  function forgetForm(node, user, reloadAll) {
    const input = el("input", { placeholder: "words every forgotten memory must hold", spellcheck: "false" });
    const out = el("div");
    const form = el(
      "form",
      { class: "row" },
      input,
      el("button", { type: "submit" }, "Preview (dry run)"),
      el("span", { class: "muted" }, "nothing is deleted until you confirm the preview")
    );
    form.addEventListener("submit", async function (ev) {
      ev.preventDefault();
      const query = input.value;
      await load(out, async function () {
        const data = await call(ROUTES.forgetUser, { user_id: user }, { body: { query: query, dry_run: true } });
        const found = data.deleted || [];
        if (found.length === 0) {
          fill(out, el("p", { class: "muted" }, "Nothing of this user holds every word of that query."));
          return;
        }
        const go = el("button", { type: "button", class: "danger" }, "Forget these " + found.length);
        go.addEventListener("click", async function () {
          if (!confirm("Permanently delete these " + found.length + " memories of user " + user + "?")) return;
          go.disabled = true;
          try {
            // By id: exactly what the preview showed, nothing written since.
            const res = await call(ROUTES.forgetUser, { user_id: user }, { body: { ids: found.map((m) => m.id) } });
            fill(out, note("Forgot " + res.count + " memories."));
            reloadAll();
          } catch (err) {
            go.disabled = false;
            out.append(errorBox(err));
          }
        });
        fill(out, el("p", null, "Would forget " + found.length + ":"), memoryTable(found), go);
      });
    });
    fill(node, form, out);
  }

  function loadPreferences(node, user) {
    return load(node, async function () {
      const data = await call(ROUTES.listPreferences, { user_id: user }, { query: { limit: 1000 } });
      const prefs = data.preferences || [];
      if (prefs.length === 0) {
        fill(node, el("p", { class: "muted" }, "No preferences."));
        return;
      }
      const rows = prefs.map(function (p) {
        const msg = el("div");
        const del = el("button", { type: "button", class: "danger" }, "Delete");
        del.addEventListener("click", async function () {
          if (!confirm("Forget preference “" + p.type + "” of user " + user + "?")) return;
          try {
            await call(ROUTES.deletePreference, { user_id: user, type: p.type });
            loadPreferences(node, user);
          } catch (err) {
            fill(msg, errorBox(err));
          }
        });
        const flags = [];
        if (p.is_persistent) flags.push(badge("persistent"));
        if (p.flagged_for_removal) flags.push(badge("flagged for removal", "warn"));
        if (p.session_id) flags.push(badge("session " + p.session_id));
        return el(
          "tr",
          null,
          el("td", null, el("code", null, p.type)),
          el("td", null, el("pre", { class: "value" }, fmtValue(p.value)), p.context ? el("div", { class: "muted small" }, p.context) : null, msg),
          el("td", null, p.source),
          el("td", { class: "num", title: "stored " + p.stored_confidence + ", peak " + p.peak }, String(p.confidence)),
          el("td", null, badge(p.tier, "tier-" + p.tier)),
          el("td", null, flags),
          timeCell(p.last_used_at),
          el("td", { class: "actions" }, del)
        );
      });
      fill(node, table(["type", "value", "source", "confidence", "tier", "", "last used", ""], rows));
    });
  }

  function loadSessions(node, user, offset) {
    return load(node, async function () {
      const data = await call(ROUTES.listSessions, { user_id: user }, { query: { limit: PAGE, offset: offset } });
      const sessions = data.sessions || [];
      if ((data.count || 0) === 0) {
        fill(node, el("p", { class: "muted" }, "No sessions."));
        return;
      }
      const rows = [];
      for (const s of sessions) {
        const detail = el("tr", { class: "history", hidden: true }, el("td", { colspan: 5 }));
        const view = el("button", { type: "button" }, "Messages");
        view.addEventListener("click", function () {
          detail.hidden = !detail.hidden;
          if (!detail.hidden) loadSession(detail.firstChild, s.session_id);
        });
        rows.push(
          el(
            "tr",
            null,
            el("td", null, el("code", null, s.session_id)),
            timeCell(s.updated_at),
            el("td", null, s.summary || ""),
            el("td", { class: "num" }, String(s.message_count)),
            el("td", { class: "actions" }, view)
          ),
          detail
        );
      }
      fill(
        node,
        el("div", { class: "pager" }, pager(offset, data.count, PAGE, (o) => loadSessions(node, user, o))),
        table(["session", "updated", "summary", "messages", ""], rows)
      );
    });
  }

  function loadSession(cell, id) {
    return load(cell, async function () {
      const s = await call(ROUTES.getSession, { session_id: id });
      const msgs = s.messages || [];
      fill(
        cell,
        el("div", { class: "muted small" }, (s.is_persistent ? "persistent" : "expires " + fmtTime(s.expires_at)) + " · confidence " + conf(s.confidence)),
        s.context && Object.keys(s.context).length ? el("pre", { class: "value" }, fmtValue(s.context)) : null,
        msgs.length === 0
          ? el("p", { class: "muted" }, "No messages.")
          : el("ol", { class: "messages" }, msgs.map((m) => el("li", null, el("strong", null, m.role + ": "), el("span", { class: "content" }, m.content))))
      );
    });
  }

  function memoryTable(mems) {
    return table(
      ["kind", "content", "key", "scope", "details", "confidence", "updated"],
      mems.map(function (m) {
        const scope = [];
        if (m.agent_id) scope.push("agent " + m.agent_id);
        if (m.session_id) scope.push("session " + m.session_id);
        if (m.task_id) scope.push("task " + m.task_id);
        const details = [];
        if (m.category) details.push(badge(m.category));
        if (m.action_type) details.push(badge(m.action_type));
        if (m.outcome) details.push(badge(m.outcome));
        for (const t of m.tags || []) details.push(badge(t, "tag"));
        if (m.expires_at) details.push(el("span", { class: "muted small" }, "expires " + fmtTime(m.expires_at)));
        return el(
          "tr",
          null,
          el("td", null, m.kind),
          el("td", null, el("div", { class: "content" }, m.content)),
          el("td", null, m.key ? el("code", null, m.key) : ""),
          el("td", null, scope.join(", ")),
          el("td", null, details),
          el("td", { class: "num" }, conf(m.confidence)),
          timeCell(m.updated_at)
        );
      })
    );
  }

  function loadUserMemories(node, user) {
    return load(node, async function () {
      const data = await call(ROUTES.userMemories, { user_id: user });
      const byKind = data.memories || {};
      const empty = [];
      const parts = [el("p", { class: "muted" }, (data.count || 0) + " memories in all")];
      for (const k of KINDS.concat(Object.keys(byKind).filter((k) => !KINDS.includes(k)))) {
        const mems = byKind[k] || [];
        if (mems.length === 0) {
          empty.push(k);
          continue;
        }
        parts.push(el("h4", null, k + " (" + mems.length + ")"), memoryTable(mems));
      }
      if (empty.length) parts.push(el("p", { class: "muted" }, "None of kind: " + empty.join(", ") + "."));
      fill(node, parts);
    });
  }

  // ---- search ----

  function setupSearch() {
    fill(
      $("search-kinds"),
      KINDS.map((k) => el("label", null, el("input", { type: "checkbox", value: k, name: "kind" }), " " + k))
    );
    $("search-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      const q = $("search-query").value;
      navigate("#search/" + encodeURIComponent(q), runSearch);
    });
  }

  function runSearch() {
    const out = $("search-results");
    const kinds = Array.from(document.querySelectorAll("#search-kinds input:checked")).map((i) => i.value);
    const q = { query: $("search-query").value, explain: true };
    searched = q.query;
    const limit = parseInt($("search-limit").value, 10);
    if (limit > 0) q.limit = limit;
    if ($("search-agent").value.trim()) q.agent_id = $("search-agent").value.trim();
    if ($("search-user").value.trim()) q.user_id = $("search-user").value.trim();
    if ($("search-session").value.trim()) q.session_id = $("search-session").value.trim();
    if (kinds.length) q.kinds = kinds;
    return load(out, async function () {
      const data = await call(ROUTES.search, null, { body: q });
      const results = data.results || [];
      const head = [el("p", { class: "muted" }, results.length + " results")];
      if (data.pending_embeddings > 0) {
        head.push(el("p", { class: "warn" }, data.pending_embeddings + " records in this scope have no embedding yet: they are found lexically only until they do."));
      }
      fill(
        out,
        head,
        results.length === 0
          ? null
          : table(
              ["#", "score", "kind", "memory", "lexical", "vector", "fused", "recency", "confidence"],
              results.map((r, i) => resultRow(r, i))
            )
      );
    });
  }

  function signalCell(sig) {
    if (!sig) return el("td", { class: "num muted" }, "—");
    return el("td", { class: "num" }, "#" + sig.rank, el("div", { class: "muted small" }, num(sig.score, 3)));
  }

  function resultRow(r, i) {
    const x = r.explain || {};
    const sig = x.signals || {};
    const scope = [];
    for (const [k, v] of Object.entries(r.scope || {})) if (v) scope.push(k.replace("_id", "") + " " + v);
    return el(
      "tr",
      null,
      el("td", { class: "num" }, String(i + 1), x.mmr_rank ? el("div", { class: "muted small", title: "position after diversity re-ranking" }, "mmr " + x.mmr_rank) : null),
      el("td", { class: "num" }, el("strong", null, num(r.score, 4))),
      el("td", null, r.kind),
      el(
        "td",
        null,
        el("div", { class: "content" }, r.content),
        el(
          "div",
          { class: "muted small" },
          (r.key ? "key " + r.key + " · " : "") + scope.join(", ") + " · updated " + fmtTime(r.updated_at)
        ),
        (r.tags || []).map((t) => badge(t, "tag"))
      ),
      signalCell(sig.lexical),
      signalCell(sig.vector),
      el("td", { class: "num" }, num(x.fused, 4)),
      el("td", { class: "num" }, num(x.recency, 3)),
      el("td", { class: "num" }, conf(x.confidence))
    );
  }

  // ---- audit ----

  let auditOffset = 0;

  function setupAudit() {
    $("audit-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      auditOffset = 0;
      loadAudit();
    });
  }

  function loadAudit() {
    const out = $("audit-results");
    const limit = parseInt($("audit-limit").value, 10) > 0 ? parseInt($("audit-limit").value, 10) : PAGE;
    const query = {
      agent_id: $("audit-agent").value.trim(),
      user_id: $("audit-user").value.trim(),
      key_id: $("audit-key").value.trim(),
      operation: $("audit-op").value.trim(),
      since: $("audit-since").value.trim(),
      limit: limit,
      offset: auditOffset,
    };
    return load(out, async function () {
      const data = await call(ROUTES.audit, null, { query: query });
      const entries = data.entries || [];
      const rows = entries.map(function (e) {
        const scope = [];
        for (const k of ["agent_id", "user_id", "session_id", "task_id"]) if (e[k]) scope.push(k.replace("_id", "") + " " + e[k]);
        const ids = e.record_ids || [];
        return el(
          "tr",
          { class: e.status >= 400 ? "failed" : "" },
          timeCell(e.time),
          el("td", null, el("code", null, e.operation)),
          el("td", { class: "num" }, String(e.status)),
          el("td", null, e.key_id ? e.key_id + (e.role ? " (" + e.role + ")" : "") : el("span", { class: "muted" }, "no key")),
          el("td", null, scope.join(", ")),
          el("td", null, e.kind || ""),
          el("td", { class: "num" }, String(e.count)),
          el("td", { class: "ids", title: ids.join("\n") }, ids.slice(0, 3).join(", ") + (ids.length > 3 ? " … +" + (ids.length - 3) : ""))
        );
      });
      fill(
        out,
        el(
          "div",
          { class: "pager" },
          pager(auditOffset, data.count || 0, limit, function (o) {
            auditOffset = o;
            loadAudit();
          })
        ),
        entries.length === 0 ? el("p", { class: "muted" }, "No entries.") : table(["time", "operation", "status", "key", "scope", "kind", "count", "records"], rows)
      );
    });
  }

  // ---- tabs and links ----
  //
  // The hash names the tab and what it shows, so a view can be reloaded
  // and linked to: #agents/{agent_id}, #users/{user_id},
  // #search/{query}, #audit.

  const TABS = ["agents", "users", "search", "audit"];
  let shownUser = "";
  let searched = "";

  function parseHash() {
    const h = location.hash.replace(/^#/, "");
    const slash = h.indexOf("/");
    const tab = slash < 0 ? h : h.slice(0, slash);
    let arg = "";
    if (slash >= 0) {
      try {
        arg = decodeURIComponent(h.slice(slash + 1));
      } catch (e) {
        arg = "";
      }
    }
    return TABS.includes(tab) ? { tab: tab, arg: arg } : { tab: "agents", arg: "" };
  }

  // navigate shows hash, or runs fn at once when hash is already shown
  // (so that submitting the same form again reloads it).
  function navigate(hash, fn) {
    if (location.hash === hash) fn();
    else location.hash = hash;
  }

  function route() {
    const r = parseHash();
    for (const name of TABS) $("tab-" + name).hidden = name !== r.tab;
    for (const a of document.querySelectorAll("#tabs a")) a.classList.toggle("current", a.dataset.tab === r.tab);
    switch (r.tab) {
      case "agents":
        if (r.arg && r.arg !== currentAgent) showAgent(r.arg);
        break;
      case "users":
        if (r.arg && r.arg !== shownUser) {
          $("user-id").value = r.arg;
          showUser(r.arg);
        }
        break;
      case "search":
        if (r.arg && r.arg !== searched) {
          $("search-query").value = r.arg;
          runSearch();
        }
        break;
      case "audit":
        if ($("audit-results").childElementCount === 0) loadAudit();
        break;
    }
  }

  // reloadTab refreshes what the current tab shows (after the key changed).
  function reloadTab() {
    loadAgents();
    switch (parseHash().tab) {
      case "agents":
        if (currentAgent) showAgent(currentAgent);
        break;
      case "users":
        if (shownUser) showUser(shownUser);
        break;
      case "search":
        if (searched) runSearch();
        break;
      case "audit":
        loadAudit();
        break;
    }
  }

  function start() {
    setupKey();
    setupSearch();
    setupAudit();
    $("agents-reload").addEventListener("click", loadAgents);
    $("agent-open").addEventListener("submit", function (ev) {
      ev.preventDefault();
      const id = $("agent-open-id").value.trim();
      if (id) navigate("#agents/" + encodeURIComponent(id), () => showAgent(id));
    });
    $("user-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      const u = $("user-id").value.trim();
      if (u) navigate("#users/" + encodeURIComponent(u), () => showUser(u));
    });
    window.addEventListener("hashchange", route);
    loadAgents();
    route();
  }

  document.addEventListener("DOMContentLoaded", start);
})();
