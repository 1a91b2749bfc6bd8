// Records of any kind as tables: the agent view's episodes, facts,
// working memory and sessions, the user view's memories by kind.
import {
  PAGE, ROUTES, action, badge, call, changed, conf, el, fill, fmtTime, kindBadge, load, metaBadges, metaFilter, muted, needs, pager, scopeOf,
  table, timeCell,
} from "./core.js";

// details are a record's kind-specific markers: category, action type,
// outcome, tags, expiry, review.
export function details(m) {
  const out = [];
  if (m.category) out.push(badge(m.category));
  if (m.action_type) out.push(badge(m.action_type));
  if (m.outcome) out.push(badge(m.outcome, "outcome-" + m.outcome));
  if (m.review) out.push(badge(m.review.replace(/_/g, " "), "warn"));
  if (m.invalid_at) out.push(badge("history: until " + fmtTime(m.invalid_at), "history"));
  for (const t of m.tags || []) out.push(badge(t, "tag"));
  if (m.expires_at) out.push(el("span", { class: "muted small" }, "expires " + fmtTime(m.expires_at)));
  return out.concat(metaBadges(m.metadata));
}

// accessed is a record's access count and last access, where it has them.
export function accessed(m) {
  if (!m.access_count && !m.last_accessed_at) return el("td", { class: "muted small" }, "—");
  return el(
    "td",
    { class: "small", title: m.last_accessed_at || "" },
    m.access_count + "×",
    m.last_accessed_at ? el("div", { class: "muted" }, "last " + fmtTime(m.last_accessed_at)) : null
  );
}

// confidenceCell shows a record's confidence where its kind has one: a
// working entry has none, and a session only the one its client gave.
function confidenceCell(m) {
  const none = m.kind === "working" || (m.kind === "session" && !m.confidence);
  return el("td", { class: "num" }, none ? el("span", { class: "muted", title: "this kind has no confidence" }, "—") : conf(m.confidence));
}

// deleteOf is how one record of m's kind is deleted, where the API has a
// route for it: the call to make.
function deleteOf(m) {
  switch (m.kind) {
    case "fact":
      return () => call(ROUTES.deleteFact, { id: m.id });
    case "episode":
      return () => call(ROUTES.deleteEpisode, { id: m.id });
    case "session":
      return m.session_id ? () => call(ROUTES.deleteSession, { session_id: m.session_id }) : null;
    case "working":
      return m.task_id && m.key
        ? () => call(ROUTES.deleteWorking, { task_id: m.task_id, key: m.key }, { query: { agent_id: m.agent_id, user_id: m.user_id } })
        : null;
  }
  return null;
}

// deleteCell is a row's delete button (editor), which removes the row once
// the record is deleted, and tells the views (their counts change).
function deleteCell(m) {
  const del = deleteOf(m);
  if (!del) return el("td");
  const msg = el("div", { class: "msg" });
  const button = needs(el("button", { type: "button", class: "delete danger", title: "delete this " + m.kind }, "Delete"), "editor");
  button.addEventListener("click", function () {
    if (!confirm("Delete this " + m.kind + "? Deletion is real: it cannot be undone.")) return;
    action(button, msg, async function () {
      await del();
      const row = button.closest("tr");
      if (row) row.remove();
      changed();
    });
  });
  return el("td", null, button, msg);
}

// memoryRow is one record: when, what, its markers, scope, confidence,
// access and, where the kind has a route for it, a delete button. withKind
// adds a kind column.
export function memoryRow(m, withKind) {
  return el(
    "tr",
    { "data-id": m.id, "data-kind": m.kind },
    timeCell(m.created_at),
    withKind ? el("td", null, kindBadge(m.kind)) : null,
    el("td", null, m.key ? el("code", { class: "key" }, m.key) : null, el("div", { class: "content" }, m.content)),
    el("td", null, details(m)),
    el("td", null, scopeOf(m)),
    confidenceCell(m),
    accessed(m),
    deleteCell(m)
  );
}

export function memoryTable(mems, withKind) {
  const head = ["created"].concat(withKind ? ["kind"] : [], ["memory", "details", "scope", "confidence", "accessed", ""]);
  return table(head, mems.map((m) => memoryRow(m, withKind)), "memories");
}

// kindSection lists, page by page, the records of one kind in a scope
// (GET /v1/memories), newest first.
export function kindSection(node, scope, kind, empty) {
  let offset = 0;
  const get = () =>
    load(node, async function () {
      const data = await call(ROUTES.listMemories, null, { query: Object.assign({ kind: kind, limit: PAGE, offset: offset }, scope) });
      const mems = data.memories || [];
      if ((data.count || 0) === 0) {
        fill(node, muted(empty || "None."));
        return;
      }
      fill(
        node,
        el("div", { class: "pager" }, pager(offset, data.count, PAGE, (o) => {
          offset = o;
          get();
        })),
        memoryTable(mems, false)
      );
    });
  return get();
}

// metaFilterForm is a form that lists the memories of a scope (every kind)
// whose metadata matches what its box holds (metaFilter), page by page,
// with GET /v1/memories?filters=…; prefix names its elements
// (prefix-meta-filter, prefix-meta-results).
export function metaFilterForm(scope, prefix) {
  const input = el("input", {
    id: prefix + "-meta-filter",
    spellcheck: "false",
    placeholder: "topicName=food, or a filter in JSON",
    "aria-label": "Metadata filter",
  });
  const out = el("div", { id: prefix + "-meta-results" });
  const form = el("form", { class: "row", id: prefix + "-meta-form" }, input, el("button", { type: "submit" }, "Filter"));
  let offset = 0;
  const get = function () {
    let filter;
    try {
      filter = metaFilter(input.value);
    } catch (err) {
      fill(out, el("div", { class: "error", role: "alert" }, err.message));
      return;
    }
    if (!filter) {
      fill(out);
      return;
    }
    return load(out, async function () {
      const query = Object.assign({ filters: JSON.stringify(filter), limit: PAGE, offset: offset }, scope);
      const data = await call(ROUTES.listMemories, null, { query: query });
      const mems = data.memories || [];
      if ((data.count || 0) === 0) {
        fill(out, muted("No memory's metadata matches."));
        return;
      }
      fill(
        out,
        el("p", { class: "muted meta-count" }, data.count + (data.count === 1 ? " memory matches" : " memories match")),
        el("div", { class: "pager" }, pager(offset, data.count, PAGE, (o) => {
          offset = o;
          get();
        })),
        memoryTable(mems, true)
      );
    });
  };
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    offset = 0;
    get();
  });
  return el("div", { class: "meta-filter" }, form, out);
}
