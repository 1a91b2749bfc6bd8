// The review queue: what waits for a person's decision about a user's
// memory: facts contradicted and not yet resolved (disputed), and
// preferences the user explicitly contradicted (flagged for removal).
// Keep clears the dispute or the flag; forget invalidates the fact (kept
// as history) or forgets the preference.
import {
  $, ROUTES, action, badge, boundAgent, call, changed, conf, el, fill, fmtTime, fmtValue, hashFor, kindBadge, link, load,
  muted, navigate, needs, note, register, table,
} from "./core.js";

let shown = "";
let built = false;

function build() {
  if (built) return;
  built = true;
  const input = el("input", { id: "review-user", spellcheck: "false", placeholder: "user id", "aria-label": "User id", list: "review-users" });
  const form = el("form", { id: "review-form", class: "row" }, el("label", { for: "review-user" }, "User"), input, el("button", { type: "submit" }, "Show what awaits review"));
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    const u = input.value.trim();
    if (u) navigate(hashFor("review", u));
  });
  fill(
    $("view-review"),
    el("h2", null, "Review queue"),
    el("p", { class: "muted" }, "Disputed facts (contradicted, not yet resolved) and preferences flagged for removal (the user said otherwise) wait here for a decision."),
    form,
    el("datalist", { id: "review-users" }),
    el("div", { id: "review-items" })
  );
  if (!boundAgent()) suggestUsers();
}

// suggestUsers offers the newest users in the user field.
async function suggestUsers() {
  try {
    const data = await call(ROUTES.listUsers, null, { query: { limit: 100 } });
    fill($("review-users"), (data.users || []).map((u) => el("option", { value: u.user_id })));
  } catch (err) {
    /* the field still takes any id */
  }
}

function what(item) {
  if (item.kind === "preference") {
    return [el("code", null, item.type), " = ", el("span", { class: "value" }, fmtValue(item.value))];
  }
  return [el("div", { class: "content" }, item.fact || item.content || ""), item.category ? badge(item.category) : null];
}

function score(item) {
  if (item.kind === "preference") return conf(item.confidence);
  return conf(item.relevance_score !== undefined ? item.relevance_score : item.confidence);
}

function showReview(user) {
  shown = user;
  $("review-user").value = user;
  const node = $("review-items");
  return load(node, async function () {
    let data;
    try {
      data = await call(ROUTES.review, { user_id: user });
    } catch (err) {
      if (err.status === 404) {
        fill(
          node,
          el(
            "div",
            { id: "review-unavailable", class: "error" },
            "This server has no review queue: GET /v1/users/{user_id}/review answered 404 (" + err.message + "). It comes with facts that change over time."
          )
        );
        return;
      }
      throw err;
    }
    const items = data.items || [];
    const msg = el("div", { id: "review-msg" });
    if (items.length === 0) {
      fill(node, el("h3", null, "User ", el("code", null, user)), muted("Nothing awaits review for this user."), msg);
      return;
    }
    const rows = items.map(function (item) {
      const keep = needs(el("button", { type: "button", class: "keep" }, "Keep"), "editor");
      const forget = needs(el("button", { type: "button", class: "danger forget" }, "Forget"), "editor");
      const resolve = (button, keepIt) =>
        action(button, msg, async function () {
          if (item.kind === "preference") {
            await call(ROUTES.resolvePreference, { user_id: user, type: item.type }, { body: { keep: keepIt } });
          } else {
            await call(ROUTES.resolveFact, { id: item.id }, { body: { keep: keepIt } });
          }
          changed();
          await showReview(user);
          fill($("review-msg"), note((keepIt ? "Kept " : "Forgot ") + (item.kind === "preference" ? "preference " + item.type : "the fact") + "."));
        });
      keep.addEventListener("click", () => resolve(keep, true));
      forget.addEventListener("click", function () {
        const label = item.kind === "preference" ? "preference “" + item.type + "”" : "this fact";
        if (!confirm("Forget " + label + " of user " + user + "?")) return;
        resolve(forget, false);
      });
      return el(
        "tr",
        { "data-kind": item.kind, "data-id": item.id || item.type },
        el("td", null, kindBadge(item.kind)),
        el("td", null, badge((item.reason || "").replace(/_/g, " "), "warn")),
        el("td", null, what(item)),
        el("td", { class: "num" }, score(item)),
        el("td", { class: "time" }, fmtTime(item.updated_at || item.created_at)),
        el("td", { class: "actions" }, keep, " ", forget)
      );
    });
    fill(
      node,
      el("div", { class: "row" }, el("h3", null, "User ", el("code", null, user)), link(hashFor("users", user), "all of this user's memory")),
      muted((data.count || items.length) + " awaiting review"),
      table(["kind", "why", "memory", "confidence", "updated", ""], rows, "review"),
      msg
    );
  });
}

register("review", {
  show(arg) {
    build();
    if (arg && arg !== shown) showReview(arg);
  },
  reset() {
    built = false;
    shown = "";
    fill($("view-review"));
  },
});
