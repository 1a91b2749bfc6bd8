// loci inspector: the page's start. It learns what the key may do
// (GET /v1/whoami), shows it, and routes the hash to the views, each of
// which registers itself with the core when its module loads.
import { $, ROUTES, apiKey, badge, boundAgent, call, can, el, errorBox, fill, landing, resetViews, route, session, storeKey } from "./core.js";
import "./overview.js";
import "./agents.js";
import "./users.js";
import "./review.js";
import "./timeline.js";
import "./search.js";
import "./audit.js";

// whoami asks the server what the key is and shows it beside the key.
async function whoami() {
  session.who = null;
  try {
    session.who = await call(ROUTES.whoami);
  } catch (err) {
    const box = errorBox(err);
    fill($("who"), box ? el("span", { class: "muted" }, "no access: see the message below the header") : null);
    applyRole();
    return;
  }
  const w = session.who;
  fill(
    $("who"),
    w.auth ? null : badge("authentication off: full access", "warn"),
    w.auth ? badge("role " + w.role, "role role-" + w.role) : null,
    w.agent_id ? badge("bound to agent " + w.agent_id, "bound") : null,
    w.auth && w.key_id ? el("span", { class: "muted small" }, "key " + w.key_id) : null
  );
  applyRole();
}

// applyRole hides the tabs the key cannot use at all.
function applyRole() {
  const bound = !!boundAgent();
  const tab = (name) => document.querySelector('#tabs a[data-tab="' + name + '"]');
  tab("audit").hidden = !can("admin") || bound;
}

function showKeyState() {
  const key = apiKey();
  fill($("key-state"), key ? "key set for this tab" : "no key: requests are sent without one");
  $("key-forget").disabled = !key;
}

// keyChanged clears everything the previous key loaded, asks who the new
// key is, and shows where it lands.
async function keyChanged() {
  session.generation++;
  session.who = null;
  $("banner").hidden = true;
  $("key-input").classList.remove("attention");
  fill($("who"));
  resetViews();
  showKeyState();
  await whoami();
  const hash = landing();
  if (hash !== location.hash) location.hash = hash;
  else route();
}

function setupKey() {
  $("key-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    const v = $("key-input").value.trim();
    try {
      if (v) storeKey(v);
    } catch (e) {
      fill($("key-state"), "cannot store the key: " + e.message);
      return;
    }
    $("key-input").value = "";
    keyChanged();
  });
  $("key-forget").addEventListener("click", function () {
    try {
      storeKey("");
    } catch (e) {
      /* nothing stored */
    }
    keyChanged();
  });
  showKeyState();
}

async function start() {
  setupKey();
  window.addEventListener("hashchange", route);
  await whoami();
  const hash = location.hash ? location.hash : landing();
  if (hash !== location.hash) location.replace(hash); // routes on hashchange
  else route();
}

start();
