// The agent view: an agent's core memory blocks (edit with conflict
// compare, version history, shared blocks' consumers), rendered prompt,
// notes, passages, episodes, facts, working memory, sessions and the
// users it has memories about.
import {
  $, APIError, PAGE, ROUTES, action, agentLink, badge, boundAgent, call, can, changed, chars, el, fill, fmtTime, fmtValue, hashFor,
  kindBadge, link, load, metaBadges, muted, navigate, needs, note, pager, register, table, timeCell, userLink,
} from "./core.js";
import { kindSection, metaFilterForm } from "./records.js";

let agentsOffset = 0;
let current = "";
let built = false;

function build() {
  if (built) return;
  built = true;
  const bound = boundAgent();
  const open = el(
    "form",
    { id: "agent-open", class: "row" },
    el("input", { id: "agent-open-id", spellcheck: "false", placeholder: "agent id", "aria-label": "Agent id" }),
    el("button", { type: "submit" }, "Open")
  );
  open.addEventListener("submit", function (ev) {
    ev.preventDefault();
    const id = $("agent-open-id").value.trim();
    if (id) navigate(hashFor("agents", id));
  });
  const reload = el("button", { type: "button", id: "agents-reload", onclick: loadAgents }, "Reload");
  fill(
    $("view-agents"),
    el(
      "div",
      { class: "split" },
      el(
        "aside",
        null,
        el("div", { class: "row" }, el("h2", null, "Agents"), bound ? null : reload),
        el("ul", { id: "agents-list", class: "picklist" }),
        el("div", { id: "agents-pager", class: "pager" }),
        bound ? null : open,
        bound ? null : el("p", { class: "muted small" }, "Opens any agent id, also one that has notes but was never created.")
      ),
      el("div", { id: "agent-detail", class: "detail" }, muted("Pick an agent to see its memory of every kind."))
    )
  );
  loadAgents();
}

function pick(id) {
  return el(
    "li",
    null,
    el("a", { class: "pick" + (id === current ? " current" : ""), href: hashFor("agents", id), "data-id": id }, id)
  );
}

function loadAgents() {
  const list = $("agents-list");
  const bound = boundAgent();
  if (bound) {
    // A bound key may not list agents: its own is its list.
    fill(list, pick(bound));
    return;
  }
  fill($("agents-pager"));
  load(list, async function () {
    const data = await call(ROUTES.listAgents, null, { query: { limit: PAGE, offset: agentsOffset } });
    const agents = data.agents || [];
    fill(list, agents.length === 0 ? el("li", { class: "muted" }, "No agents yet.") : agents.map((a) => pick(a.id)));
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
  current = id;
  for (const a of document.querySelectorAll("#agents-list .pick")) a.classList.toggle("current", a.dataset.id === id);
  const bound = boundAgent();
  if (bound && id !== bound) {
    // Every section would be refused (403): say so once, and offer the
    // key's own agent.
    fill(
      $("agent-detail"),
      el("h2", null, "Agent ", el("code", null, id)),
      el("div", { class: "error auth", role: "alert", id: "agent-refused" },
        "403 Forbidden: this API key is bound to agent ", el("code", null, bound), " and cannot open agent ", el("code", null, id), ". ",
        agentLink(bound), " is the one it can.")
    );
    return;
  }
  const sections = {};
  const section = (key, title, help) => {
    sections[key] = el("div", { id: "agent-" + key });
    return [el("h3", null, title), help ? el("p", { class: "muted small" }, help) : null, sections[key]];
  };
  fill(
    $("agent-detail"),
    el(
      "div",
      { class: "row" },
      el("h2", null, "Agent ", el("code", null, id)),
      link(hashFor("timeline", "", { agent: id }), "timeline"),
      link(hashFor("search", "", { agent: id }), "search its memory")
    ),
    el("div", { id: "agent-summary" }),
    el("h3", null, "Memories by metadata"),
    metaFilterForm({ agent_id: id }, "agent"),
    section("blocks", "Core memory blocks", "Always in the agent's prompt. Saving is compare-and-set: a block someone else changed meanwhile is not overwritten."),
    section("prompt", "Rendered prompt"),
    section("notes", "Notes"),
    section("passages", "Archival passages"),
    section("episodes", "Episodes"),
    section("facts", "Facts"),
    section("working", "Working memory"),
    section("sessions", "Sessions"),
    section("users", "Users it has memories about")
  );
  const reloadPrompt = () => loadPrompt(sections.prompt, id);
  loadSummary($("agent-summary"), sections.users, id);
  loadBlocks(sections.blocks, id, reloadPrompt);
  reloadPrompt();
  loadNotes(sections.notes, id);
  loadPassages(sections.passages, id, 0);
  kindSection(sections.episodes, { agent_id: id }, "episode", "No episodes.");
  kindSection(sections.facts, { agent_id: id }, "fact", "No facts.");
  kindSection(sections.working, { agent_id: id }, "working", "No working memory.");
  kindSection(sections.sessions, { agent_id: id }, "session", "No sessions name this agent; sessions belong to users (see below).");
}

// loadSummary shows the agent's counts per kind and its users.
function loadSummary(node, usersNode, agent) {
  fill(usersNode, muted("Loading…"));
  return load(node, async function () {
    fill(usersNode, muted("—"));
    const st = await call(ROUTES.stats, null, { query: { agent_id: agent, top: 20, days: 1 } });
    const kinds = Object.entries(st.kinds || {}).filter(([, n]) => n > 0);
    fill(
      node,
      el(
        "p",
        { class: "summary" },
        st.total + " memories",
        kinds.length ? ": " : "",
        kinds.map(([k, n]) => el("span", { class: "kindcount" }, kindBadge(k), String(n)))
      )
    );
    const users = st.top_users || [];
    fill(
      usersNode,
      users.length === 0
        ? muted("None.")
        : table(
            ["user", "memories of this agent", ""],
            users.map((u) =>
              el(
                "tr",
                null,
                el("td", null, userLink(u.id)),
                el("td", { class: "num" }, String(u.count)),
                el("td", { class: "actions" }, link(hashFor("timeline", "", { agent: agent, user: u.id }), "timeline"))
              )
            )
          ),
      st.users > users.length ? muted("and " + (st.users - users.length) + " more") : null
    );
  });
}

function loadBlocks(node, agent, reloadPrompt) {
  return load(node, async function () {
    // An agent that has only notes (or other memories) has no blocks yet:
    // its blocks are 404, which is no error here.
    const data = await call(ROUTES.listBlocks, { agent_id: agent }).catch(noAgentYet({ blocks: [] }));
    const blocks = data.blocks || [];
    fill(node, blocks.length === 0 ? muted("No blocks.") : blocks.map((b) => blockCard(node, agent, b, reloadPrompt)));
  });
}

// blockCard is one block: its content to edit, saved compare-and-set; on
// a conflict it offers the other version beside the unsaved one.
function blockCard(node, agent, b, reloadPrompt) {
  const area = el("textarea", { rows: Math.min(12, Math.max(3, b.content.split("\n").length + 1)), spellcheck: "false", "aria-label": "content of " + b.label });
  area.value = b.content;
  area.readOnly = !can("editor");
  const counter = el("span", { class: "muted" });
  const ver = el("span", { class: "muted version" }, "version " + b.version);
  const updated = el("span", { class: "muted small" }, "updated " + fmtTime(b.updated_at));
  const msg = el("div", { class: "msg" });
  const history = el("div", { class: "history", hidden: true });
  const consumers = el("div", { class: "consumers" });
  const count = () => {
    const n = chars(area.value);
    fill(counter, n + " / " + b.limit + " characters");
    counter.classList.toggle("over", b.limit > 0 && n > b.limit);
  };
  area.addEventListener("input", count);
  count();

  const saved = (res) => {
    b.version = res.version;
    b.content = res.content;
    area.value = res.content;
    count();
    fill(msg, note("Saved: version " + res.version + "."));
    fill(ver, "version " + res.version);
    fill(updated, "updated " + fmtTime(res.updated_at));
    if (!history.hidden) loadBlockHistory(history, agent, b.label);
    reloadPrompt();
  };
  const put = (expected) => call(ROUTES.putBlock, { agent_id: agent, label: b.label }, { body: { content: area.value, expected_version: expected } });

  const save = needs(el("button", { type: "button", class: "save" }, "Save"), "editor");
  save.addEventListener("click", () =>
    action(save, msg, async function () {
      try {
        saved(await put(b.version));
      } catch (err) {
        if (err.status !== 409) throw err;
        conflict(msg, agent, b, area, put, saved);
      }
    })
  );
  const revert = el("button", {
    type: "button",
    onclick: () => {
      area.value = b.content;
      count();
      fill(msg);
    },
  }, "Revert");
  const histBtn = el("button", { type: "button", class: "history-toggle" }, "History");
  histBtn.addEventListener("click", function () {
    history.hidden = !history.hidden;
    if (!history.hidden) loadBlockHistory(history, agent, b.label);
  });
  if (b.is_shared) loadConsumers(consumers, agent, b);
  return el(
    "div",
    { class: "card block", "data-label": b.label },
    el(
      "div",
      { class: "row" },
      el("strong", null, b.label),
      ver,
      b.is_shared ? badge(b.owner_agent_id === agent ? "shared by this agent" : "shared, owned by " + b.owner_agent_id, "shared") : null,
      metaBadges(b.metadata),
      el("span", { class: "muted small", title: "block id" }, b.id)
    ),
    area,
    el("div", { class: "row" }, save, revert, histBtn, counter, updated),
    msg,
    history,
    consumers
  );
}

// conflict tells that the block changed since it was loaded and offers
// the other version beside the unsaved one, to keep either.
function conflict(msg, agent, b, area, put, saved) {
  const cmp = el("div", { class: "compare-area" });
  const showBtn = el("button", { type: "button", class: "show-theirs" }, "Show their version beside yours");
  showBtn.addEventListener("click", () =>
    action(showBtn, cmp, async function () {
      const theirs = await call(ROUTES.getBlock, { agent_id: agent, label: b.label });
      const mine = area.value;
      const keepMine = el("button", { type: "button", class: "keep-mine" }, "Keep mine (save over version " + theirs.version + ")");
      const takeTheirs = el("button", { type: "button", class: "take-theirs" }, "Take theirs (discard mine)");
      const result = el("div");
      keepMine.addEventListener("click", () =>
        action(keepMine, result, async function () {
          area.value = mine;
          saved(await put(theirs.version));
        })
      );
      takeTheirs.addEventListener("click", function () {
        saved(theirs);
        fill(msg, note("Took version " + theirs.version + "; your text was discarded."));
      });
      fill(
        cmp,
        el(
          "div",
          { class: "compare" },
          compareSide("Theirs: version " + theirs.version + ", updated " + fmtTime(theirs.updated_at), theirs.content, mine, "del"),
          compareSide("Yours, not saved (edited from version " + b.version + ")", mine, theirs.content, "add")
        ),
        el("div", { class: "row" }, keepMine, takeTheirs),
        result
      );
    })
  );
  fill(
    msg,
    el(
      "div",
      { class: "error conflict", role: "alert" },
      "409 Conflict: someone saved this block since you loaded version " + b.version + ". Your text is still here, not saved.",
      el("div", { class: "row" }, showBtn)
    ),
    cmp
  );
}

// compareSide shows one version, its lines missing from the other marked.
function compareSide(title, text, other, mark) {
  const others = new Set(other.split("\n"));
  return el(
    "div",
    { class: "side" },
    el("div", { class: "muted small" }, title),
    el("pre", { class: "value" }, text.split("\n").map((line) => el("span", { class: others.has(line) ? "same" : mark }, line + "\n")))
  );
}

function loadBlockHistory(node, agent, label) {
  return load(node, async function () {
    const data = await call(ROUTES.blockHistory, { agent_id: agent, label: label });
    const versions = data.versions || [];
    fill(
      node,
      el(
        "ol",
        { class: "versions" },
        versions.map((v, i) =>
          el(
            "li",
            null,
            el("span", { class: "muted" }, "version " + v.version + " · " + fmtTime(v.updated_at) + " · limit " + v.limit + (i === 0 ? " · current" : "")),
            el("pre", { class: "value" }, v.content === "" ? "(empty)" : v.content)
          )
        )
      )
    );
  });
}

// loadConsumers lists the agents a shared block is attached to, with
// detach, and a form to attach another.
function loadConsumers(node, agent, b) {
  const list = el("div");
  const input = el("input", { placeholder: "agent id", spellcheck: "false", "aria-label": "agent to attach " + b.label + " to" });
  const attach = needs(el("button", { type: "submit" }, "Attach"), "editor", true);
  const msg = el("div");
  const form = el("form", { class: "row attach" }, el("span", null, "Attach to"), input, attach);
  input.disabled = attach.disabled;
  const refresh = () =>
    load(list, async function () {
      const data = await call(ROUTES.listConsumers, { block_id: b.id });
      const links = data.consumers || [];
      fill(
        list,
        links.length === 0
          ? muted("Attached to no other agent.")
          : table(
              ["attached to", "since", ""],
              links.map(function (l) {
                const detach = needs(el("button", { type: "button", class: "danger detach" }, "Detach"), "editor");
                detach.addEventListener("click", function () {
                  if (!confirm("Detach block “" + b.label + "” from agent " + l.agent_id + "?")) return;
                  action(detach, msg, async function () {
                    await call(ROUTES.detachBlock, { block_id: b.id, agent_id: l.agent_id });
                    refresh();
                  });
                });
                return el("tr", null, el("td", null, agentLink(l.agent_id)), timeCell(l.created_at), el("td", { class: "actions" }, detach));
              }),
              "consumers"
            )
      );
    });
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    const to = input.value.trim();
    if (!to) return;
    action(attach, msg, async function () {
      await call(ROUTES.attachBlock, { block_id: b.id, agent_id: to });
      input.value = "";
      refresh();
    });
  });
  fill(node, el("h4", null, "Consumers of this shared block"), list, b.owner_agent_id === agent ? form : null, msg);
  refresh();
}

// noAgentYet returns a handler that answers empty for a 404 (an agent
// known only by its memories has no blocks) and rethrows anything else.
function noAgentYet(empty) {
  return function (err) {
    if (err instanceof APIError && err.status === 404) return empty;
    throw err;
  };
}

function loadPrompt(node, agent) {
  return load(node, async function () {
    const text = await call(ROUTES.prompt, { agent_id: agent }).catch(noAgentYet(""));
    fill(node, el("pre", { class: "prompt" }, typeof text === "string" && text !== "" ? text : "(empty)"));
  });
}

function loadNotes(node, agent) {
  return load(node, async function () {
    const data = await call(ROUTES.listNotes, { agent_id: agent });
    const notes = data.memories || [];
    if (notes.length === 0) {
      fill(node, muted("No notes."));
      return;
    }
    const rows = [];
    for (const n of notes) {
      const history = el("tr", { class: "history", hidden: true }, el("td", { colspan: 4 }));
      const msg = el("div");
      const histBtn = el("button", { type: "button" }, "History");
      histBtn.addEventListener("click", function () {
        history.hidden = !history.hidden;
        if (!history.hidden) loadNoteHistory(history.firstChild, agent, n.key);
      });
      const del = needs(el("button", { type: "button", class: "danger" }, "Delete"), "editor");
      del.addEventListener("click", function () {
        if (!confirm("Delete note “" + n.key + "” of agent " + agent + " and its history?")) return;
        action(del, msg, async function () {
          await call(ROUTES.deleteNote, { agent_id: agent, key: n.key });
          loadNotes(node, agent);
          changed();
        });
      });
      rows.push(
        el(
          "tr",
          { "data-key": n.key },
          el("td", null, el("code", null, n.key)),
          el("td", null, el("pre", { class: "value" }, fmtValue(n.value)), metaBadges(n.metadata), msg),
          timeCell(n.updated_at),
          el("td", { class: "actions" }, histBtn, " ", del)
        ),
        history
      );
    }
    fill(node, muted(data.count + " notes"), table(["key", "value", "updated", ""], rows, "notes"));
  });
}

function loadNoteHistory(cell, agent, key) {
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
      fill(node, muted("No passages."));
      return;
    }
    const rows = passages.map(function (p) {
      const msg = el("div");
      const del = needs(el("button", { type: "button", class: "danger" }, "Delete"), "editor");
      del.addEventListener("click", function () {
        if (!confirm("Delete this passage of agent " + agent + "?")) return;
        action(del, msg, async function () {
          await call(ROUTES.deletePassage, { agent_id: agent, id: p.id });
          loadPassages(node, agent, offset);
          changed();
        });
      });
      return el(
        "tr",
        null,
        el("td", null, el("div", { class: "content" }, p.content), msg),
        el("td", null, (p.tags || []).map((t) => badge(t, "tag")), metaBadges(p.metadata)),
        timeCell(p.created_at),
        el("td", { class: "actions" }, del)
      );
    });
    fill(
      node,
      el("div", { class: "pager" }, pager(offset, data.count, PAGE, (o) => loadPassages(node, agent, o))),
      table(["content", "tags and metadata", "created", ""], rows, "passages")
    );
  });
}

register("agents", {
  show(arg) {
    build();
    if (arg && arg !== current) showAgent(arg);
  },
  reset() {
    built = false;
    current = "";
    agentsOffset = 0;
    fill($("view-agents"));
  },
});
