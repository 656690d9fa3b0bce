// Simple Simon Online: keeps a page's live parts fresh without reloading it.
//
// An element with data-live="URL" is fetched again every data-every seconds (an HTML
// fragment the server renders; 304 when unchanged) and replaced when it changed. Elements
// with data-countdown="SECONDS" count down to zero (those a live part brings too); at zero
// the day is over, or a race room's deal is revealed, and the page reloads.
// A module (deferred, strict): it imports the play page's clock, so both count down alike,
// and its words (the "play" catalog, in the page's language).

import { clock, installServiceWorker } from "./play/dom.js";
import { t, timeOfDay, tn } from "./play/i18n.js";

installServiceWorker();

(function () {
  function announce(text) {
    var status = document.querySelector("[data-live-status]");
    if (status) status.textContent = text;
  }

  function countdowns() {
    // Each element counts from when it was first seen: one in a live part the server just
    // sent again starts over from its fresh value.
    var ends = new WeakMap();
    var reloading = false;
    function tick() {
      var now = Date.now();
      Array.prototype.forEach.call(document.querySelectorAll("[data-countdown]"), function (element) {
        if (!ends.has(element)) {
          ends.set(element, now + Number(element.getAttribute("data-countdown")) * 1000);
        }
        var left = (ends.get(element) - now) / 1000;
        element.textContent = clock(left);
        if (left <= 0 && !reloading) {
          reloading = true;
          setTimeout(function () { window.location.reload(); }, 5000);
        }
      });
    }
    if (!document.querySelector("[data-countdown], [data-live]")) return;
    tick();
    setInterval(tick, 1000);
  }

  function keepFocus(region, replace) {
    var active = document.activeElement;
    var href = active && region.contains(active) ? active.getAttribute("href") : null;
    replace();
    if (href) {
      var again = region.querySelector('a[href="' + CSS.escape(href) + '"]');
      if (again) again.focus();
    }
  }

  function live(region) {
    var url = region.getAttribute("data-live");
    var every = Math.max(1, Number(region.getAttribute("data-every")) || 5) * 1000;
    var busy = false;

    function refresh() {
      if (busy || document.hidden) return;
      busy = true;
      fetch(url, { cache: "no-cache", headers: { Accept: "text/html" } })
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.text();
        })
        .then(function (text) {
          var fresh = region.cloneNode(false);
          fresh.innerHTML = text;
          region.classList.remove("stale");
          if (!fresh.isEqualNode(region)) {
            keepFocus(region, function () {
              region.replaceChildren.apply(region, Array.prototype.slice.call(fresh.childNodes));
            });
            announce(t("Updated at %(time)s", { time: timeOfDay(new Date()) }));
          }
        })
        .catch(function () {
          region.classList.add("stale");
        })
        .then(function () {
          busy = false;
        });
    }

    setInterval(refresh, every);
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden) refresh();
    });
  }

  // A replay's positions: one shown at a time, stepped with the arrow keys, the buttons or
  // the list of actions, whose shown one is marked; the address's #step-N names it. A page
  // holds a page of positions (data-replay-page from data-replay-first): a step past it
  // opens the page that holds it, at that position.
  function replay(element) {
    var positions = element.querySelectorAll("[data-step]");
    var actions = element.querySelectorAll("[data-goto]");
    var at = element.querySelector("[data-step-at]");
    var first = Number(element.getAttribute("data-replay-first")) || 0;
    var total = Number(element.getAttribute("data-replay-total"));
    var size = Number(element.getAttribute("data-replay-page")) || positions.length;
    var path = element.getAttribute("data-replay-path");
    if (isNaN(total)) total = first + positions.length - 1;
    var shown = first;
    function open(index) {
      var start = index - (index % size);
      window.location.assign(path + (start ? "?from=" + start : "") + "#step-" + index);
    }
    function show(index) {
      index = Math.max(0, Math.min(total, index));
      if (index < first || index >= first + positions.length) return open(index);
      shown = index;
      Array.prototype.forEach.call(positions, function (position, i) {
        position.hidden = first + i !== shown;
      });
      Array.prototype.forEach.call(actions, function (action, i) {
        if (first + i === shown) action.setAttribute("aria-current", "step");
        else action.removeAttribute("aria-current");
      });
      var current = actions[shown - first];
      if (current) {
        // Scroll the list only, never the page, so the table stays where the eye is.
        var list = current.closest("ol");
        var item = current.parentElement;
        if (item.offsetTop < list.scrollTop) list.scrollTop = item.offsetTop;
        else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
          list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
        }
      }
      if (at) at.textContent = String(shown);
      history.replaceState(null, "", "#step-" + shown);
    }
    element.addEventListener("click", function (event) {
      var by = event.target.closest("[data-step-by]");
      var to = event.target.closest("[data-goto]");
      if (by) show(shown + Number(by.getAttribute("data-step-by")));
      if (to) {
        event.preventDefault();
        show(Number(to.getAttribute("data-goto")));
      }
    });
    document.addEventListener("keydown", function (event) {
      var moves = { ArrowRight: shown + 1, ArrowLeft: shown - 1, Home: 0, End: total };
      if (event.key in moves && !event.altKey && !event.ctrlKey && !event.metaKey) {
        event.preventDefault();
        show(moves[event.key]);
      }
    });
    function showNamed() {
      var named = /^#step-(\d+)$/.exec(window.location.hash);
      if (named) show(Number(named[1]));
    }
    window.addEventListener("hashchange", showNamed);
    showNamed();
  }

  // A replay with no solver review yet: a player signed in on this site (the play page
  // keeps the token, "simon.token") asks for one over the game's websocket, and the page
  // writes it in as the server's template would (any node may answer: none need have it).
  function reviewButton(button) {
    var token = null;
    try {
      token = window.localStorage.getItem("simon.token");
    } catch (error) {
      token = null; // storage refused: no button
    }
    if (!token) return;
    var status = document.querySelector("[data-review-status]");
    var progress = /** @type {HTMLElement | null} */ (document.querySelector("[data-review-progress]"));
    button.hidden = false;
    button.addEventListener("click", function () {
      button.disabled = true;
      status.textContent = t("The solver is looking at every position…");
      var scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
      var socket = new WebSocket(scheme + "//" + window.location.host + "/");
      var done = false;
      var counted = false; // the status said how many positions the solver judges
      var warned = false; // ... and that the review will take long
      function end(text) {
        if (done) return;
        done = true;
        socket.close();
        status.textContent = text;
        if (progress) progress.hidden = true;
        button.disabled = false;
      }
      // How far the solver has got: the bar and its line move (not read out at each step);
      // the status (read out) says the count of positions once, and a long review's warning.
      function showProgress(message) {
        var positions = Math.max(1, message.positions);
        if (progress) {
          var bar = progress.querySelector("progress");
          bar.max = positions;
          bar.value = Math.min(message.judged, positions);
          var shown = { judged: Math.min(message.judged + 1, positions), positions: positions };
          progress.querySelector("[data-review-progress-text]").textContent = t("Judging position %(judged)s of %(positions)s", shown);
          progress.hidden = false;
        }
        var said = counted ? status.textContent : tn("The solver is judging %(count)s position…", "The solver is judging %(count)s positions…", positions);
        counted = true;
        if (message.long && !warned && message.seconds_left_estimate != null) {
          warned = true;
          var seconds = Math.max(1, Math.round(message.seconds_left_estimate));
          said += " " + tn("This review will take a while: about %(count)s second.", "This review will take a while: about %(count)s seconds.", seconds);
        }
        if (status.textContent !== said) status.textContent = said;
      }
      socket.addEventListener("open", function () {
        socket.send(JSON.stringify({ type: "auth", id: "sign-in", token: token }));
        socket.send(JSON.stringify({ type: "review", id: "review", game: button.getAttribute("data-review") }));
      });
      socket.addEventListener("message", function (event) {
        var message = JSON.parse(event.data);
        if (message.type === "error" && message.id === "sign-in") {
          end(t("Sign in on the play page first (%(reason)s).", { reason: message.message }));
        } else if (message.type === "queued") {
          // the solver is making others' reviews first: where this one stands
          if (!done) {
            status.textContent =
              message.position === 1
                ? t("Waiting for the solver: next in line…")
                : t("Waiting for the solver: number %(position)s in line…", { position: message.position });
          }
        } else if (message.type === "review_progress") {
          if (!done) showProgress(message);
        } else if (message.id === "review") {
          if (message.type !== "review") return end(message.message);
          showReview(message);
          end("");
          button.remove();
        }
      });
      socket.addEventListener("close", function () {
        end(t("The connection closed before the review came: try again."));
      });
    });
  }

  function showReview(review) {
    // the words and stops of the replay page's own review (replay.html), from its catalog
    var total;
    if (review.won) {
      total = tn("won in %(count)s move", "won in %(count)s moves", review.moves);
      if (review.against_line != null) {
        total += ", " + t("%(over)s over the solver's line of %(line)s", { over: review.against_line, line: review.solver_line });
      }
      if (review.against_par != null) total += ", " + t("%(over)s over par", { over: review.against_par });
    } else {
      total = t("not won");
      if (review.losing_move) total += "; " + t("no win was left after action %(seq)s", { seq: review.losing_move });
    }
    if (review.unknown) total += "; " + tn("%(count)s position unknown", "%(count)s positions unknown", review.unknown);
    document.querySelector("[data-review-total]").textContent = t("Solver review:") + " " + total + ".";
    review.positions.forEach(function (position) {
      var line = document.querySelector('[data-judged="' + position.seq + '"]');
      if (!line) return;
      var judged = t("lost");
      if (position.winnable == null) judged = t("unknown");
      else if (position.winnable) judged = t("winnable, the solver's line %(distance)s", { distance: position.distance });
      if (position.delta != null) judged += ", " + t("cost %(delta)s", { delta: position.delta });
      line.textContent += "; " + judged;
    });
  }

  function start() {
    countdowns();
    Array.prototype.forEach.call(document.querySelectorAll("[data-review]"), reviewButton);
    Array.prototype.forEach.call(document.querySelectorAll("[data-replay]"), replay);
    Array.prototype.forEach.call(document.querySelectorAll("[data-live]"), live);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
