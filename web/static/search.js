// Search: hybrid search across kinds with each result's score explained.
// The query and its filters live in the hash
// (#search/{query}?agent=…&user=…&session=…&kinds=…&meta=…&limit=…), so a search
// can be linked to and reloaded.
import {
  $, KINDS, ROUTES, boundAgent, call, conf, el, fill, fmtTime, hashFor, kindBadge, listParam, load, metaBadges, metaFilter, muted,
  navigate, num, register, scopeOf, table,
} from "./core.js";

let built = false;
let shownHash = null;

function build() {
  if (built) return;
  built = true;
  const bound = boundAgent();
  const input = (id, placeholder) => el("input", { id: id, spellcheck: "false", placeholder: placeholder });
  const agent = input("search-agent", "any");
  if (bound) {
    agent.value = bound;
    agent.disabled = true;
    agent.title = "this key is bound to agent " + bound;
  }
  const form = el(
    "form",
    { id: "search-form", class: "grid-form" },
    el("label", { for: "search-query" }, "Query"),
    el("input", { id: "search-query", required: true, placeholder: "what to look for" }),
    el("label", { for: "search-agent" }, "Agent id"),
    agent,
    el("label", { for: "search-user" }, "User id"),
    input("search-user", "any"),
    el("label", { for: "search-session" }, "Session id"),
    input("search-session", "any"),
    el("label", { for: "search-meta" }, "Metadata"),
    el("input", { id: "search-meta", spellcheck: "false", placeholder: "topicName=food, or a filter in JSON" }),
    el("label", { for: "search-limit" }, "Limit"),
    el("input", { id: "search-limit", type: "number", min: 1, max: 1000, value: "10" }),
    el("span", { class: "label" }, "Kinds"),
    el("div", { id: "search-kinds", class: "checks" }, KINDS.map((k) => el("label", null, el("input", { type: "checkbox", value: k, name: "kind" }), " ", kindBadge(k)))),
    el("span"),
    el("div", null, el("button", { type: "submit" }, "Search and explain"))
  );
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    shownHash = null; // the same search again: run it again
    navigate(searchHash());
  });
  fill($("view-search"), el("h2", null, "Search"), form, el("div", { id: "search-results" }));
}

// searchHash is the link of the search the form holds.
function searchHash() {
  const kinds = Array.from(document.querySelectorAll("#search-kinds input:checked")).map((i) => i.value);
  const limit = $("search-limit").value.trim();
  return hashFor("search", $("search-query").value, {
    agent: boundAgent() ? "" : $("search-agent").value.trim(),
    user: $("search-user").value.trim(),
    session: $("search-session").value.trim(),
    kinds: kinds,
    meta: $("search-meta").value.trim(),
    limit: limit && limit !== "10" ? limit : "",
  });
}

function runSearch(query, params) {
  const bound = boundAgent();
  const agent = bound || params.get("agent") || "";
  const kinds = listParam(params, "kinds").filter((k) => KINDS.includes(k));
  $("search-query").value = query;
  $("search-agent").value = agent;
  $("search-user").value = params.get("user") || "";
  $("search-session").value = params.get("session") || "";
  $("search-limit").value = params.get("limit") || "10";
  $("search-meta").value = params.get("meta") || "";
  for (const box of document.querySelectorAll("#search-kinds input")) box.checked = kinds.includes(box.value);
  const out = $("search-results");
  if (!query.trim()) {
    fill(out);
    return;
  }
  const body = { query: query, explain: true };
  const limit = parseInt(params.get("limit") || "10", 10);
  if (limit > 0) body.limit = limit;
  if (agent) body.agent_id = agent;
  if (params.get("user")) body.user_id = params.get("user");
  if (params.get("session")) body.session_id = params.get("session");
  if (kinds.length) body.kinds = kinds;
  return load(out, async function () {
    const filter = metaFilter(params.get("meta") || "");
    if (filter) body.filters = filter;
    const data = await call(ROUTES.search, null, { body: body });
    const results = data.results || [];
    const head = [el("p", { class: "muted" }, results.length + " results · ", el("a", { href: location.hash, id: "search-permalink" }, "link to this search"))];
    if (data.pending_embeddings > 0) {
      head.push(el("p", { class: "warn" }, data.pending_embeddings + " records in this scope have no embedding yet: they are found lexically only until they do."));
    }
    fill(
      out,
      head,
      results.length === 0
        ? muted("Nothing found.")
        : table(["#", "score", "kind", "memory", "lexical", "vector", "fused", "recency", "confidence"], results.map((r, i) => resultRow(r, i)), "results")
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
  return el(
    "tr",
    null,
    el("td", { class: "num" }, String(i + 1), x.mmr_rank ? el("div", { class: "muted small", title: "position after diversity re-ranking" }, "mmr " + x.mmr_rank) : null),
    el("td", { class: "num" }, el("strong", null, num(r.score, 4))),
    el("td", null, kindBadge(r.kind)),
    el(
      "td",
      null,
      el("div", { class: "content" }, r.content),
      el("div", { class: "muted small" }, r.key ? "key " + r.key + " · " : "", scopeOf(r.scope || {}), " · updated " + fmtTime(r.updated_at)),
      (r.tags || []).map((t) => el("span", { class: "badge tag" }, t)),
      metaBadges(r.metadata)
    ),
    signalCell(sig.lexical),
    signalCell(sig.vector),
    el("td", { class: "num" }, num(x.fused, 4)),
    el("td", { class: "num" }, num(x.recency, 3)),
    el("td", { class: "num" }, conf(x.confidence))
  );
}

register("search", {
  show(arg, params) {
    build();
    const h = arg + "?" + params.toString();
    if (h === shownHash) return;
    shownHash = h;
    runSearch(arg, params);
  },
  reset() {
    built = false;
    shownHash = null;
    fill($("view-search"));
  },
});
