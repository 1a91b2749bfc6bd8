// The timeline: a user's or an agent's memories of every kind in time
// order, newest first, filterable by kind; its filters live in the hash
// (#timeline?agent=…&user=…&kinds=…) so a view can be linked to.
import {
  $, KINDS, PAGE, ROUTES, boundAgent, call, el, errorBox, fill, hashFor, kindBadge, listParam, muted, navigate, register, scopeOf,
} from "./core.js";
import { accessed, details } from "./records.js";

let built = false;
let shownHash = null;

function build() {
  if (built) return;
  built = true;
  const bound = boundAgent();
  const agent = el("input", { id: "timeline-agent", spellcheck: "false", placeholder: bound ? "" : "any" });
  if (bound) {
    agent.value = bound;
    agent.disabled = true;
    agent.title = "this key is bound to agent " + bound;
  }
  const user = el("input", { id: "timeline-user", spellcheck: "false", placeholder: "any" });
  const after = el("input", { id: "timeline-after", type: "date", title: "created on or after this day (UTC)" });
  const before = el("input", { id: "timeline-before", type: "date", title: "created before the end of this day (UTC)" });
  const kinds = el(
    "div",
    { id: "timeline-kinds", class: "checks" },
    KINDS.map((k) => el("label", null, el("input", { type: "checkbox", value: k, name: "kind" }), " ", kindBadge(k)))
  );
  const form = el(
    "form",
    { id: "timeline-form", class: "grid-form" },
    el("label", { for: "timeline-agent" }, "Agent id"),
    agent,
    el("label", { for: "timeline-user" }, "User id"),
    user,
    el("span", { class: "label" }, "Created"),
    el("div", null, "from ", after, " to ", before, " ", el("span", { class: "muted" }, "(UTC days, both included)")),
    el("span", { class: "label" }, "Kinds"),
    kinds,
    el("span"),
    el("div", null, el("button", { type: "submit" }, "Show the timeline"), " ", el("span", { class: "muted" }, "no kind ticked: every kind"))
  );
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    shownHash = null; // the same filters again: reload
    navigate(hashFor("timeline", "", { agent: bound ? "" : agent.value.trim(), user: user.value.trim(), kinds: checkedKinds(), after: after.value, before: before.value }));
  });
  fill($("view-timeline"), el("h2", null, "Timeline"), form, el("div", { id: "timeline-results" }));
}

function checkedKinds() {
  return Array.from(document.querySelectorAll("#timeline-kinds input:checked")).map((i) => i.value);
}

// dayStart and dayEnd turn a YYYY-MM-DD day (UTC) into the RFC 3339 bounds
// GET /v1/memories takes: after the start of the first day, before the end
// of the last.
function dayStart(d) {
  return /^\d{4}-\d\d-\d\d$/.test(d) ? new Date(Date.parse(d + "T00:00:00Z") - 1).toISOString() : "";
}

function dayEnd(d) {
  return /^\d{4}-\d\d-\d\d$/.test(d) ? new Date(Date.parse(d + "T00:00:00Z") + 86400000).toISOString() : "";
}

function day(iso) {
  return (iso || "").slice(0, 10);
}

function clock(iso) {
  const m = /T(\d\d:\d\d:\d\d)/.exec(iso || "");
  return m ? m[1] : "";
}

function show(params) {
  const bound = boundAgent();
  const agent = bound || params.get("agent") || "";
  const user = params.get("user") || "";
  const kinds = listParam(params, "kinds").filter((k) => KINDS.includes(k));
  const after = params.get("after") || "";
  const before = params.get("before") || "";
  $("timeline-agent").value = agent;
  $("timeline-user").value = user;
  $("timeline-after").value = after;
  $("timeline-before").value = before;
  for (const box of document.querySelectorAll("#timeline-kinds input")) box.checked = kinds.includes(box.value);
  const out = $("timeline-results");
  const tbody = el("tbody");
  const more = el("button", { type: "button", id: "timeline-more", hidden: true }, "Older ›");
  const status = el("p", { class: "muted" }, "Loading…");
  const msg = el("div");
  const scope = [agent ? "agent " + agent : "", user ? "user " + user : ""].filter(Boolean).join(", ") || "the whole workspace";
  fill(
    out,
    el("p", null, "Memories of ", el("strong", null, scope), kinds.length ? ", of kind " + kinds.join(", ") : ", of every kind",
      after || before ? ", created " + (after ? "from " + after + " " : "") + (before ? "to " + before : "") : "", ", newest first."),
    status,
    el("table", { class: "timeline" }, tbody),
    more,
    msg
  );
  let offset = 0;
  let lastDay = "";
  const page = async function () {
    more.disabled = true;
    try {
      const data = await call(ROUTES.listMemories, null, {
        query: { agent_id: agent, user_id: user, kind: kinds, after: dayStart(after), before: dayEnd(before), limit: PAGE, offset: offset },
      });
      const mems = data.memories || [];
      for (const m of mems) {
        if (day(m.created_at) !== lastDay) {
          lastDay = day(m.created_at);
          tbody.append(el("tr", { class: "day" }, el("th", { colspan: 6 }, lastDay)));
        }
        tbody.append(
          el(
            "tr",
            { class: "entry", "data-kind": m.kind },
            el("td", { class: "time", title: m.created_at }, clock(m.created_at)),
            el("td", null, kindBadge(m.kind)),
            el("td", null, m.key ? el("code", { class: "key" }, m.key) : null, el("div", { class: "content" }, m.content)),
            el("td", null, details(m)),
            el("td", null, scopeOf(m)),
            accessed(m)
          )
        );
      }
      offset += mems.length;
      fill(status, data.count === 0 ? "Nothing here." : offset + " of " + data.count + " memories");
      more.hidden = offset >= data.count;
    } catch (err) {
      fill(status);
      fill(msg, errorBox(err));
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener("click", page);
  page();
}

register("timeline", {
  show(arg, params) {
    build();
    const h = params.toString();
    if (h === shownHash) return;
    shownHash = h;
    show(params);
  },
  reset() {
    built = false;
    shownHash = null;
    fill($("view-timeline"));
  },
});
