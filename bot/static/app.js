// Staff desk: ask /v1/ask?format=desk, show the answer as the customer sees it, copy it.
// Every piece of answer text goes in with textContent: answers can echo the customer's words.
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

  async function ask() {
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
    copyMd.disabled = false;
    copyText.disabled = false;
    say("Answered in " + data.answer.lang.toUpperCase() + ".");
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

  q.addEventListener("input", () => {
    if (current && q.value.trim() !== asked) say("Press Enter to ask the edited question.");
  });
})();
