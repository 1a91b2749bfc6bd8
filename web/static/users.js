// The user view: the list of users, and one user's preferences, sessions,
// everything loci remembers by kind, and forgetting by query (a preview
// first, then exactly what it showed).
import {
  $, KINDS, PAGE, ROUTES, action, badge, boundAgent, call, changed, conf, el, fill, fmtTime, fmtValue, hashFor, link, load, metaBadges,
  muted, navigate, needs, note, onChange, pager, register, table, timeCell,
} from "./core.js";
import { userList } from "./overview.js";
import { memoryTable, metaFilterForm } from "./records.js";

let shown = "";
let built = false;

function build() {
  if (built) return;
  built = true;
  const open = el(
    "form",
    { id: "user-form", class: "row" },
    el("input", { id: "user-id", spellcheck: "false", placeholder: "user id", "aria-label": "User id" }),
    el("button", { type: "submit" }, "Open")
  );
  open.addEventListener("submit", function (ev) {
    ev.preventDefault();
    const u = $("user-id").value.trim();
    if (u) navigate(hashFor("users", u));
  });
  const list = el("div", { id: "users-list" });
  fill(
    $("view-users"),
    el(
      "div",
      { class: "split wide" },
      el("aside", null, el("h2", null, "Users"), open, list),
      el("div", { id: "user-detail", class: "detail" }, muted("Pick a user to see everything loci remembers about them."))
    )
  );
  if (boundAgent()) fill(list, muted("A key bound to an agent cannot list users; open one by id."));
  else userList(list, { id: "users", compact: true });
}

function showUser(user) {
  shown = user;
  $("user-id").value = user;
  const bound = boundAgent();
  const forget = el("div", { id: "user-forget" });
  const prefs = el("div", { id: "user-preferences" });
  const sessions = el("div", { id: "user-sessions" });
  const mems = el("div", { id: "user-memories" });
  fill(
    $("user-detail"),
    el(
      "div",
      { class: "row" },
      el("h2", null, "User ", el("code", null, user)),
      link(hashFor("timeline", "", { user: user }), "timeline"),
      link(hashFor("review", user), "review queue"),
      link(hashFor("search", "", { user: user }), "search their memory")
    ),
    bound ? null : el("div", { class: "row", id: "user-actions" }, exportButton(user), deleteUserButton(user)),
    bound ? null : [el("h3", null, "Forget by query"), forget],
    el("h3", null, "Preferences"),
    prefs,
    el("h3", null, "Sessions"),
    sessions,
    el("h3", null, "Memories by metadata"),
    metaFilterForm({ user_id: user }, "user"),
    bound ? null : [el("h3", null, "Everything loci remembers, by kind"), mems]
  );
  // Read again after each change (a delete here or in another view): the
  // counts by kind, and what is left.
  const reloadAll = function () {
    loadPreferences(prefs, user);
    loadSessions(sessions, user, 0);
    if (!bound) loadUserMemories(mems, user);
  };
  if (!bound) forgetForm(forget, user);
  reloadAll();
  onChange(prefs, reloadAll);
}

// exportButton downloads everything about the user as JSON Lines (GET
// /v1/export?user_id=, admin), with the page's key.
function exportButton(user) {
  const msg = el("div", { class: "msg" });
  const button = needs(el("button", { type: "button", id: "user-export" }, "Export (JSON Lines)"), "admin", true);
  button.addEventListener("click", function () {
    action(button, msg, async function () {
      const text = await call(ROUTES.exportUser, null, { query: { user_id: user } });
      const url = URL.createObjectURL(new Blob([typeof text === "string" ? text : JSON.stringify(text)], { type: "application/x-ndjson" }));
      const a = el("a", { href: url, download: "loci-user-" + user + ".jsonl" });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    });
  });
  return el("span", null, button, msg);
}

// deleteUserButton deletes everything about the user, once confirmed.
function deleteUserButton(user) {
  const msg = el("div", { class: "msg" });
  const button = needs(el("button", { type: "button", id: "user-delete", class: "danger" }, "Delete this user"), "editor", true);
  button.addEventListener("click", function () {
    if (!confirm("Delete everything loci holds about " + user + "? Deletion is real: it cannot be undone.")) return;
    action(button, msg, async function () {
      const res = await call(ROUTES.deleteUser, { user_id: user });
      fill($("user-detail"), el("p", { id: "user-deleted", class: "note" }, "Deleted user ", el("code", null, user), ": " + (res.deleted || 0) + " records."));
      shown = "";
      changed();
    });
  });
  return el("span", null, button, msg);
}

// forgetForm previews what a query would forget (a dry run), then forgets
// exactly the previewed records, by id.
function forgetForm(node, user) {
  const input = el("input", { id: "forget-query", placeholder: "words every forgotten memory must hold", spellcheck: "false" });
  const out = el("div", { id: "forget-result" });
  const preview = needs(el("button", { type: "submit" }, "Preview (dry run)"), "editor");
  const form = el("form", { class: "row" }, input, preview, el("span", { class: "muted" }, "nothing is deleted until you confirm the preview"));
  form.addEventListener("submit", async function (ev) {
    ev.preventDefault();
    const query = input.value;
    await load(out, async function () {
      const data = await call(ROUTES.forgetUser, { user_id: user }, { body: { query: query, dry_run: true } });
      const found = data.deleted || [];
      if (found.length === 0) {
        fill(out, muted("Nothing of this user holds every word of that query."));
        return;
      }
      const go = el("button", { type: "button", class: "danger forget-run" }, "Forget these " + found.length);
      const msg = el("div");
      go.addEventListener("click", function () {
        if (!confirm("Permanently delete these " + found.length + " memories of user " + user + "?")) return;
        action(go, msg, async function () {
          // By id: exactly what the preview showed, nothing written since.
          const res = await call(ROUTES.forgetUser, { user_id: user }, { body: { ids: found.map((m) => m.id) } });
          fill(out, note("Forgot " + res.count + " memories."));
          changed();
        });
      });
      fill(out, el("p", null, "Would forget " + found.length + ":"), memoryTable(found, true), go, msg);
    });
  });
  fill(node, form, out);
}

function loadPreferences(node, user) {
  return load(node, async function () {
    const data = await call(ROUTES.listPreferences, { user_id: user }, { query: { limit: 1000 } });
    const prefs = data.preferences || [];
    if (prefs.length === 0) {
      fill(node, muted("No preferences."));
      return;
    }
    const rows = prefs.map(function (p) {
      const msg = el("div");
      const del = needs(el("button", { type: "button", class: "danger" }, "Delete"), "editor");
      del.addEventListener("click", function () {
        if (!confirm("Forget preference “" + p.type + "” of user " + user + "?")) return;
        action(del, msg, async function () {
          await call(ROUTES.deletePreference, { user_id: user, type: p.type });
          changed();
        });
      });
      const flags = [];
      if (p.is_persistent) flags.push(badge("persistent"));
      if (p.flagged_for_removal) flags.push(link(hashFor("review", user), badge("flagged for removal", "warn")));
      if (p.session_id) flags.push(badge("session " + p.session_id));
      flags.push(...metaBadges(p.metadata));
      return el(
        "tr",
        { "data-type": p.type },
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
    fill(node, table(["type", "value", "source", "confidence", "tier", "", "last used", ""], rows, "preferences"));
  });
}

function loadSessions(node, user, offset) {
  return load(node, async function () {
    const data = await call(ROUTES.listSessions, { user_id: user }, { query: { limit: PAGE, offset: offset } });
    const sessions = data.sessions || [];
    if ((data.count || 0) === 0) {
      fill(node, muted("No sessions."));
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
          el("td", null, s.summary || "", el("div", null, metaBadges(s.metadata))),
          el("td", { class: "num" }, String(s.message_count)),
          el("td", { class: "actions" }, view)
        ),
        detail
      );
    }
    fill(
      node,
      el("div", { class: "pager" }, pager(offset, data.count, PAGE, (o) => loadSessions(node, user, o))),
      table(["session", "updated", "summary", "messages", ""], rows, "sessions")
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
        ? muted("No messages.")
        : el("ol", { class: "messages" }, msgs.map((m) => el("li", null, el("strong", null, m.role + ": "), el("span", { class: "content" }, m.content))))
    );
  });
}

function loadUserMemories(node, user) {
  return load(node, async function () {
    const data = await call(ROUTES.userMemories, { user_id: user });
    const byKind = data.memories || {};
    const empty = [];
    const parts = [muted((data.count || 0) + " memories in all")];
    for (const k of KINDS.concat(Object.keys(byKind).filter((k) => !KINDS.includes(k)))) {
      const mems = byKind[k] || [];
      if (mems.length === 0) {
        empty.push(k);
        continue;
      }
      parts.push(el("h4", null, k + " (" + mems.length + ")"), memoryTable(mems, false));
    }
    if (empty.length) parts.push(muted("None of kind: " + empty.join(", ") + "."));
    fill(node, parts);
  });
}

register("users", {
  show(arg) {
    build();
    if (arg && arg !== shown) showUser(arg);
  },
  reset() {
    built = false;
    shown = "";
    fill($("view-users"));
  },
});
