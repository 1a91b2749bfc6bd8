// The overview: what there is (counts per kind, agent and user), how it
// grows, the newest memories, the embedding queue, and the lists of
// agents and users with search.
import {
  $, KINDS, PAGE, ROUTES, agentLink, badge, boundAgent, call, el, fill, fmtTime, hashFor, kindBadge, link, load, muted, onChange,
  pager, register, scopeOf, svg, table, timeCell, userLink,
} from "./core.js";

const AGENT_PAGE = 1000; // agents are few: a page is searched in the page

let shown = false;

function show() {
  if (shown) return;
  shown = true;
  const bound = boundAgent();
  const stats = el("div");
  const lists = el("div", { class: "columns" });
  const reload = el("button", { type: "button", id: "overview-reload" }, "Reload");
  reload.addEventListener("click", () => {
    shown = false;
    show();
  });
  fill(
    $("view-overview"),
    el("div", { class: "row" }, el("h2", null, bound ? "Overview of agent " + bound : "Overview"), reload),
    stats,
    lists
  );
  loadStats(stats, bound);
  onChange(stats, () => loadStats(stats, bound)); // the counts, after a delete in any view
  if (bound) {
    fill(lists, muted("This key is bound to agent " + bound + ": the lists of every agent and user are not open to it."));
    return;
  }
  const agents = el("div", { class: "panel" });
  const users = el("div", { class: "panel" });
  fill(lists, agents, users);
  agentList(agents);
  userList(users);
}

function loadStats(node, bound) {
  return load(node, async function () {
    const st = await call(ROUTES.stats, null, { query: { agent_id: bound } });
    const emb = st.embeddings || {};
    const scope = bound ? { agent: bound } : {};
    fill(
      node,
      el(
        "div",
        { class: "cards" },
        card("Memories", st.total, "records of every kind"),
        card("Agents", st.agents, "named by records"),
        card("Users", st.users, "named by records"),
        card(
          "Embedding queue",
          emb.model ? emb.pending : "—",
          emb.model ? (emb.pending ? "waiting for " + emb.model : "all embedded by " + emb.model) : "no embedder: lexical search only",
          "embeddings"
        )
      ),
      el(
        "div",
        { class: "columns" },
        el("div", { class: "panel" }, el("h3", null, "By kind"), kindTable(st.kinds || {}, scope)),
        el(
          "div",
          { class: "panel" },
          el("h3", null, "Growth, last " + (st.growth || []).length + " days"),
          growthChart(st.growth || []),
          growthLegend(st.growth || [])
        )
      ),
      el(
        "div",
        { class: "columns" },
        bound ? null : el("div", { class: "panel" }, el("h3", null, "Most memories, by agent"), topTable(st.top_agents || [], agentLink)),
        el("div", { class: "panel" }, el("h3", null, "Most memories, by user"), topTable(st.top_users || [], userLink))
      ),
      el("h3", null, "Newest memories"),
      newestTable(st.newest || [])
    );
  });
}

function card(title, value, sub, id) {
  return el(
    "div",
    { class: "card stat", id: id ? "stat-" + id : null },
    el("div", { class: "muted small" }, title),
    el("div", { class: "big" }, String(value)),
    el("div", { class: "muted small" }, sub)
  );
}

function kindTable(kinds, scope) {
  const max = Math.max(1, ...KINDS.map((k) => kinds[k] || 0));
  return table(
    ["kind", "memories", ""],
    KINDS.map((k) =>
      el(
        "tr",
        null,
        el("td", null, link(hashFor("timeline", "", Object.assign({ kinds: k }, scope)), kindBadge(k))),
        el("td", { class: "num" }, String(kinds[k] || 0)),
        el("td", { class: "barcell" }, barFill((kinds[k] || 0) / max))
      )
    )
  );
}

// barFill is a bar's filled part, as an SVG so its width needs no inline
// style (the page's policy allows no inline style).
function barFill(frac) {
  return svg(
    "svg",
    { viewBox: "0 0 100 10", preserveAspectRatio: "none", class: "barsvg", "aria-hidden": "true" },
    svg("rect", { x: 0, y: 0, width: Math.max(0, Math.min(100, frac * 100)).toFixed(2), height: 10 })
  );
}

// growthChart draws the daily counts as bars and the running total as a
// line, in inline SVG.
export function growthChart(growth) {
  if (growth.length === 0) return muted("No data.");
  const W = 600, H = 160, pad = 28, top = 10;
  const maxCount = Math.max(1, ...growth.map((d) => d.count));
  const maxTotal = Math.max(1, ...growth.map((d) => d.total));
  const step = (W - 2 * pad) / growth.length;
  const y = (v, max) => top + (H - pad - top) * (1 - v / max);
  const bars = growth.map((d, i) =>
    svg(
      "rect",
      { class: "chart-bar", x: (pad + i * step + step * 0.15).toFixed(1), y: y(d.count, maxCount).toFixed(1), width: (step * 0.7).toFixed(1), height: (H - pad - y(d.count, maxCount)).toFixed(1) },
      svg("title", null, d.date + ": " + d.count + " new, " + d.total + " in all")
    )
  );
  const line = growth.map((d, i) => (pad + i * step + step / 2).toFixed(1) + "," + y(d.total, maxTotal).toFixed(1)).join(" ");
  return svg(
    "svg",
    { class: "chart", viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "memories created per day and in all" },
    svg("line", { class: "axis", x1: pad, y1: H - pad, x2: W - pad, y2: H - pad }),
    bars,
    svg("polyline", { class: "chart-line", points: line }),
    svg("text", { class: "chart-label", x: pad, y: H - 8 }, growth[0].date),
    svg("text", { class: "chart-label", x: W - pad, y: H - 8, "text-anchor": "end" }, growth[growth.length - 1].date),
  );
}

function growthLegend(growth) {
  const last = growth.length ? growth[growth.length - 1] : { total: 0 };
  const most = Math.max(0, ...growth.map((d) => d.count));
  return el(
    "p",
    { class: "muted small" },
    "Bars: records created each day that still exist (at most " + most + " a day). Line: the running total (" + last.total + " now)."
  );
}

function topTable(rows, linkOf) {
  if (rows.length === 0) return muted("None.");
  return table(
    ["", "memories"],
    rows.map((r) => el("tr", null, el("td", null, linkOf(r.id)), el("td", { class: "num" }, String(r.count))))
  );
}

export function newestTable(mems) {
  if (mems.length === 0) return muted("No memories yet.");
  return table(
    ["created", "kind", "memory", "scope"],
    mems.map((m) =>
      el(
        "tr",
        null,
        timeCell(m.created_at),
        el("td", null, kindBadge(m.kind)),
        el(
          "td",
          null,
          m.key ? el("code", { class: "key" }, m.key + " ") : null,
          el("span", { class: "content clip" }, m.content),
          // A superseded (or invalidated) fact is history, not what is true.
          m.invalid_at ? [" ", badge("history: until " + fmtTime(m.invalid_at), "history")] : null
        ),
        el("td", null, scopeOf(m))
      )
    ),
    "newest"
  );
}

// agentList is every agent, searched in the page by id or name.
function agentList(node) {
  const filter = el("input", { id: "overview-agent-filter", type: "search", placeholder: "search agents by id or name", spellcheck: "false" });
  const out = el("div");
  let offset = 0;
  let agents = [];
  let count = 0;
  const render = () => {
    const q = filter.value.trim().toLowerCase();
    const hit = agents.filter((a) => !q || a.id.toLowerCase().includes(q) || (a.name || "").toLowerCase().includes(q));
    fill(
      out,
      el("div", { class: "pager" }, pager(offset, count, AGENT_PAGE, (o) => {
        offset = o;
        get();
      })),
      hit.length === 0
        ? muted(agents.length === 0 ? "No agents yet." : "No agent matches.")
        : table(
            ["agent", "name", "created"],
            hit.map((a) => el("tr", null, el("td", null, agentLink(a.id)), el("td", null, a.name || ""), timeCell(a.created_at))),
            "agents"
          )
    );
  };
  const get = () =>
    load(out, async function () {
      const data = await call(ROUTES.listAgents, null, { query: { limit: AGENT_PAGE, offset: offset } });
      agents = data.agents || [];
      count = data.count || 0;
      render();
    });
  filter.addEventListener("input", render);
  fill(node, el("h3", null, "Agents"), filter, out);
  get();
}

// userList is every user, searched by the server (GET /v1/users?q=);
// opts.compact fits it in a side panel.
export function userList(node, opts) {
  opts = opts || {};
  const search = el("input", { id: (opts.id || "overview") + "-user-search", type: "search", placeholder: "search users by id", spellcheck: "false" });
  const out = el("div");
  let offset = 0;
  let timer = 0;
  const get = () =>
    load(out, async function () {
      const data = await call(ROUTES.listUsers, null, { query: { q: search.value.trim(), limit: PAGE, offset: offset } });
      const users = data.users || [];
      fill(
        out,
        el("div", { class: "pager" }, pager(offset, data.count || 0, PAGE, (o) => {
          offset = o;
          get();
        })),
        users.length === 0
          ? muted(search.value.trim() ? "No user matches." : "No users yet.")
          : opts.compact
            ? table(
                ["user", "memories", "last write"],
                users.map((u) => el("tr", null, el("td", null, userLink(u.user_id)), el("td", { class: "num" }, String(u.memories)), timeCell(u.updated_at))),
                "users"
              )
            : table(
                ["user", "memories", "first seen", "last write", ""],
                users.map((u) =>
                  el(
                    "tr",
                    null,
                    el("td", null, userLink(u.user_id)),
                    el("td", { class: "num" }, String(u.memories)),
                    timeCell(u.created_at),
                    timeCell(u.updated_at),
                    el(
                      "td",
                      { class: "actions" },
                      link(hashFor("timeline", "", { user: u.user_id }), "timeline"),
                      " ",
                      link(hashFor("review", u.user_id), "review")
                    )
                  )
                ),
                "users"
              )
      );
    });
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      offset = 0;
      get();
    }, 250);
  });
  fill(node, opts.compact ? null : el("h3", null, "Users"), search, out);
  get();
  onChange(out, get); // each user's count, and who is left, after a delete
}

register("overview", {
  show: show,
  reset() {
    shown = false;
    fill($("view-overview"));
  },
});
