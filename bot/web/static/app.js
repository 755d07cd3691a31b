// Staff desk: ask /v1/ask?format=desk, show the answer as the customer sees it, copy it.
// Every piece of answer text goes in with textContent: answers can echo the customer's words.
// Permalinks (?q=&lang=) answer on load; the previews and the chart come from the server
// (/v1/preview, /v1/chart): this page only draws, it never sizes anything itself.
"use strict";

(function () {
  const form = document.getElementById("ask-form");
  const q = document.getElementById("q");
  const lang = document.getElementById("lang");
  const math = document.getElementById("math");
  const status = document.getElementById("status");
  const body = document.getElementById("answer-body");
  const copyMd = document.getElementById("copy-md");
  const copyText = document.getElementById("copy-text");
  const tokenBox = document.getElementById("token-box");
  const token = document.getElementById("token");
  const candidates = document.getElementById("candidates");
  const historyList = document.getElementById("history");
  const historyEmpty = document.getElementById("history-empty");
  const tgPreview = document.getElementById("preview-telegram");
  const dcPreview = document.getElementById("preview-discord");
  const chartBox = document.getElementById("chart-box");
  const chart = document.getElementById("chart");
  const SVG = "http://www.w3.org/2000/svg";

  let current = null; // the last /v1/ask?format=desk bundle
  let asked = ""; // the question that bundle answers
  let seq = 0; // ignore replies to questions that were superseded

  token.value = sessionStorage.getItem("vramchat-token") || "";
  token.addEventListener("change", () => sessionStorage.setItem("vramchat-token", token.value));

  function say(text) {
    status.textContent = text;
  }

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }

  function lines(list, into) {
    if (list.length === 1) {
      into.appendChild(el("p", list[0]));
      return;
    }
    const ul = el("ul");
    for (const line of list) ul.appendChild(el("li", line.replace(/^•\s*/, "")));
    into.appendChild(ul);
  }

  function render(bundle) {
    const a = bundle.answer;
    const labels = bundle.labels;
    const out = document.createDocumentFragment();
    if (a.headline) out.appendChild(el("p", a.headline, "headline"));
    for (const section of a.sections) {
      if (section.title) out.appendChild(el("h3", section.title));
      lines(section.lines, out);
    }
    if (a.caveats.length) {
      out.appendChild(el("h3", labels.watch_out, "caveats-title"));
      lines(a.caveats.map((n) => n.text), out);
    }
    if (a.assumptions.length) {
      out.appendChild(el("h3", labels.assumptions, "assumptions-title"));
      lines(a.assumptions.map((n) => n.text), out);
    }
    if (a.math.length) {
      const box = el("div", undefined, "math");
      box.id = "math-box";
      box.hidden = !math.checked;
      box.appendChild(el("h3", labels.show_math));
      box.appendChild(el("pre", a.math.join("\n")));
      out.appendChild(box);
    }
    if (labels.prices_as_of) out.appendChild(el("p", labels.prices_as_of, "footer"));
    body.replaceChildren(out);
    body.lang = a.lang;
  }

  async function ask(push = true) {
    const text = q.value.trim();
    if (!text) {
      say("Type the customer's question first.");
      q.focus();
      return;
    }
    const mine = ++seq;
    const params = new URLSearchParams({ q: text, format: "desk" });
    if (lang.value) params.set("lang", lang.value);
    const headers = { Accept: "application/json" };
    if (token.value) headers.Authorization = "Bearer " + token.value;
    say("Asking…");
    let res;
    let data;
    try {
      res = await fetch("/v1/ask?" + params.toString(), { headers });
      data = await res.json();
    } catch (err) {
      if (mine === seq) say("The desk did not answer (" + err.message + "). Is the server running?");
      return;
    }
    if (mine !== seq) return;
    if (!res.ok) {
      const message = data && data.error ? data.error.message : "HTTP " + res.status;
      say("Not answered: " + message);
      if (res.status === 401) {
        tokenBox.open = true;
        token.focus();
      }
      return;
    }
    current = data;
    asked = text;
    render(data);
    renderCandidates(data.answer);
    copyMd.disabled = false;
    copyText.disabled = false;
    say("Answered in " + data.answer.lang.toUpperCase() + ": " + summary(data.answer));
    remember(text, lang.value);
    if (push) permalink(text, lang.value);
    extras(params, headers, mine);
  }

  // The live region gets one line, the verdict, never the whole answer.
  function summary(a) {
    const first = (data) => (data.split("\n")[0] || "").trim();
    return first(current.text) || a.headline || a.kind;
  }

  function permalink(text, language) {
    const url = new URL(window.location.href);
    url.search = "";
    url.searchParams.set("q", text);
    if (language) url.searchParams.set("lang", language);
    if (url.href !== window.location.href) {
      window.history.pushState({ q: text, lang: language }, "", url.href);
    }
  }

  const seen = [];
  function remember(text, language) {
    const key = language + "\u0000" + text;
    if (seen.includes(key)) return;
    seen.push(key);
    const item = el("li");
    const link = el("a", text + (language ? " (" + language + ")" : ""));
    const url = new URL(window.location.href);
    url.search = "";
    url.searchParams.set("q", text);
    if (language) url.searchParams.set("lang", language);
    link.href = url.pathname + url.search;
    link.addEventListener("click", (event) => {
      event.preventDefault();
      q.value = text;
      lang.value = language;
      ask();
    });
    item.appendChild(link);
    historyList.prepend(item);
    historyEmpty.hidden = true;
  }

  function renderCandidates(a) {
    candidates.replaceChildren();
    candidates.hidden = !(a.kind === "clarify" && a.candidates.length);
    for (const c of a.candidates) {
      const b = el("button", c.name, "candidate");
      b.type = "button";
      b.addEventListener("click", () => {
        q.value = c.name + " " + asked;
        ask();
      });
      candidates.appendChild(b);
    }
  }

  async function extras(params, headers, mine) {
    const base = new URLSearchParams(params);
    base.delete("format");
    try {
      const [pv, ch] = await Promise.all([
        fetch("/v1/preview?" + base.toString(), { headers }).then((r) => r.json()),
        fetch("/v1/chart?" + base.toString(), { headers }).then((r) => r.json()),
      ]);
      if (mine !== seq) return;
      renderPreviews(pv);
      renderChart(ch);
    } catch (err) {
      if (mine === seq) say("Previews unavailable (" + err.message + ").");
    }
  }

  function renderPreviews(pv) {
    const tg = el("div");
    for (const line of pv.telegram.short.split("\n")) tg.appendChild(el("p", line));
    if (pv.telegram.details) {
      const more = el("details", undefined, "tg-details");
      more.appendChild(el("summary", "Details (expandable quote)"));
      more.appendChild(el("pre", pv.telegram.details));
      tg.appendChild(more);
    }
    tgPreview.replaceChildren(tg);
    tgPreview.lang = pv.lang;
    const e = pv.discord.embed;
    const dc = el("div");
    if (e.title) dc.appendChild(el("p", e.title, "embed-title"));
    if (e.description) for (const line of e.description.split("\n")) dc.appendChild(el("p", line));
    if (e.footer && e.footer.text) dc.appendChild(el("p", e.footer.text, "embed-footer"));
    dcPreview.replaceChildren(dc);
    dcPreview.lang = pv.lang;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function tokens(n) {
    if (n >= 1048576) return n / 1048576 + "M";
    if (n >= 1024) return Math.round(n / 1024) + "k";
    return String(n);
  }

  // Draw the server's points: x is log2(context), y is GB; capacities are horizontal lines.
  function renderChart(data) {
    chart.replaceChildren();
    if (!data.points || data.points.length < 2) {
      chartBox.hidden = true;
      return;
    }
    chartBox.hidden = false;
    const W = 600, H = 300, L = 56, R = 12, T = 12, B = 40;
    const xs = data.points.map((p) => Math.log2(p.tokens));
    const top = Math.max(...data.points.map((p) => p.gb), ...data.lines.map((l) => l.gb)) * 1.08;
    const x = (v) => L + ((v - xs[0]) / (xs[xs.length - 1] - xs[0])) * (W - L - R);
    const y = (gb) => T + (1 - gb / top) * (H - T - B);
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", id: "chart-svg", class: "chart" });
    const first = data.points[0], last = data.points[data.points.length - 1];
    root.appendChild(svg("title", {}, `Memory from ${first.gb.toFixed(1)} GB at ${tokens(first.tokens)} to ${last.gb.toFixed(1)} GB at ${tokens(last.tokens)} context`));
    root.appendChild(svg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis" }));
    root.appendChild(svg("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis" }));
    for (const p of data.points) {
      const px = x(Math.log2(p.tokens));
      root.appendChild(svg("text", { x: px, y: H - B + 16, class: "tick", "text-anchor": "middle" }, tokens(p.tokens)));
    }
    for (let i = 0; i <= 4; i++) {
      const gb = (top / 4) * i;
      root.appendChild(svg("text", { x: L - 6, y: y(gb) + 4, class: "tick", "text-anchor": "end" }, Math.round(gb) + " GB"));
    }
    for (const line of data.lines) {
      const g = svg("g", { class: "capacity " + line.role, "data-card": line.label, "data-gb": line.gb });
      g.appendChild(svg("line", { x1: L, y1: y(line.gb), x2: W - R, y2: y(line.gb) }));
      g.appendChild(svg("text", { x: W - R - 4, y: y(line.gb) - 5, "text-anchor": "end" }, `${line.label}: ${line.gb} GB`));
      root.appendChild(g);
    }
    const pts = data.points.map((p) => `${x(Math.log2(p.tokens)).toFixed(1)},${y(p.gb).toFixed(1)}`);
    root.appendChild(svg("polyline", { points: pts.join(" "), class: "curve" }));
    root.appendChild(svg("text", { x: (L + W) / 2, y: H - 6, class: "tick", "text-anchor": "middle" }, "context length (tokens)"));
    chart.appendChild(root);
  }

  async function copy(text, what) {
    try {
      if (navigator.clipboard && window.isSecureContext) {
        await navigator.clipboard.writeText(text);
      } else {
        // Plain http on a LAN address is not a secure context: fall back to a selection copy.
        const area = el("textarea");
        area.value = text;
        area.setAttribute("readonly", "");
        area.className = "offscreen";
        document.body.appendChild(area);
        area.select();
        const ok = document.execCommand("copy");
        area.remove();
        if (!ok) throw new Error("the browser refused");
      }
      say("Copied " + what + ".");
    } catch (err) {
      say("Could not copy (" + err.message + "); select the answer and copy it by hand.");
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    ask();
  });

  lang.addEventListener("change", () => {
    if (q.value.trim()) ask();
  });

  math.addEventListener("change", () => {
    const box = document.getElementById("math-box");
    if (box) box.hidden = !math.checked;
    if (current) say(math.checked ? "The math is shown and copied." : "The math is hidden.");
  });

  copyMd.addEventListener("click", () => {
    if (!current) return;
    copy(math.checked ? current.markdown_math : current.markdown, "for the ticket (Markdown)");
  });

  copyText.addEventListener("click", () => {
    if (!current) return;
    copy(math.checked ? current.text_math : current.text, "as plain text");
  });

  window.addEventListener("popstate", (event) => {
    const state = event.state || fromUrl();
    if (!state || !state.q) return;
    q.value = state.q;
    lang.value = state.lang || "";
    ask(false);
  });

  function fromUrl() {
    const params = new URLSearchParams(window.location.search);
    const text = params.get("q");
    if (!text) return null;
    const language = params.get("lang") || "";
    return { q: text, lang: ["en", "pl", "th"].includes(language) ? language : "" };
  }

  const start = fromUrl();
  if (start) {
    q.value = start.q;
    lang.value = start.lang;
    window.history.replaceState(start, "", window.location.href);
    ask(false);
  }

  q.addEventListener("input", () => {
    if (current && q.value.trim() !== asked) say("Press Enter to ask the edited question.");
  });
})();
