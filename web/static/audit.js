// The audit log: who did what to which memories, when (admin keys).
import { $, PAGE, ROUTES, boundAgent, call, can, el, fill, load, muted, pager, register, table, timeCell } from "./core.js";

let built = false;
let auditOffset = 0;

function build() {
  if (built) return;
  built = true;
  const field = (id, label, placeholder) => [el("label", { for: id }, label), el("input", { id: id, spellcheck: "false", placeholder: placeholder || "" })];
  const form = el(
    "form",
    { id: "audit-form", class: "grid-form" },
    field("audit-agent", "Agent id"),
    field("audit-user", "User id"),
    field("audit-key", "Key id"),
    field("audit-op", "Operation", "e.g. note.recall"),
    field("audit-since", "Since", "RFC 3339, e.g. 2025-01-31T00:00:00Z"),
    el("label", { for: "audit-limit" }, "Per page"),
    el("input", { id: "audit-limit", type: "number", min: 1, max: 1000, value: String(PAGE) }),
    el("span"),
    el("div", null, el("button", { type: "submit" }, "Read the audit log"), " ", el("span", { class: "muted" }, "needs an admin key when authentication is on"))
  );
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    auditOffset = 0;
    loadAudit();
  });
  fill($("view-audit"), el("h2", null, "Audit log"), form, el("div", { id: "audit-results" }));
  if (!can("admin") || boundAgent()) {
    fill($("audit-results"), muted("The audit log needs an admin key that is not bound to an agent."));
    return;
  }
  loadAudit();
}

function loadAudit() {
  const out = $("audit-results");
  const n = parseInt($("audit-limit").value, 10);
  const limit = n > 0 ? n : PAGE;
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
        el("td", { class: "via" }, e.via || ""),
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
      entries.length === 0 ? muted("No entries.") : table(["time", "operation", "status", "via", "key", "scope", "kind", "count", "records"], rows, "audit")
    );
  });
}

register("audit", {
  show() {
    build();
  },
  reset() {
    built = false;
    auditOffset = 0;
    fill($("view-audit"));
  },
});
