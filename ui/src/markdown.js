// A small markdown renderer for campaign reports that builds DOM nodes (never innerHTML), so a
// report can contain any text without becoming markup. It covers what report.py writes: headings,
// paragraphs, lists, quotes, **bold**, *italic*, `code`, [text](url) and numbered citations [n].

const INLINE = /(\*\*[^*]+\*\*|\*[^*\s][^*]*\*|`[^`]+`|\[\d+\]|\[[^\]]+\]\([^)\s]+\))/g;

/** Inline text into nodes; `cite(n)` makes the node for citation number n (or null for plain text). */
export function inline(text, cite) {
  const out = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > last) out.push(document.createTextNode(text.slice(last, match.index)));
    const token = match[0];
    let node = null;
    if (token.startsWith("**")) {
      node = document.createElement("strong");
      node.append(...inline(token.slice(2, -2), cite));
    } else if (token.startsWith("`")) {
      node = document.createElement("code");
      node.textContent = token.slice(1, -1);
    } else if (token.startsWith("*")) {
      node = document.createElement("em");
      node.append(...inline(token.slice(1, -1), cite));
    } else if (/^\[\d+\]$/.test(token)) {
      node = cite(Number(token.slice(1, -1)));
    } else {
      const [, label, url] = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(token);
      node = document.createElement("span");
      node.className = "link";
      node.title = url;
      node.append(...inline(label, cite));
    }
    out.push(node ?? document.createTextNode(token));
    last = match.index + token.length;
  }
  if (last < text.length) out.push(document.createTextNode(text.slice(last)));
  return out;
}

/** Block-level markdown into a DocumentFragment. */
export function render(markdown, cite) {
  const root = document.createDocumentFragment();
  const lines = String(markdown).replace(/\r\n?/g, "\n").split("\n");
  let para = [];
  let list = null;
  const flush = () => {
    if (para.length) {
      const p = document.createElement("p");
      p.append(...inline(para.join(" "), cite));
      root.append(p);
      para = [];
    }
  };
  for (const raw of lines) {
    const line = raw.trimEnd();
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const bullet = /^\s*(?:[-*+]|(\d+)[.)])\s+(.*)$/.exec(line);
    if (!line.trim()) {
      flush();
      list = null;
    } else if (heading) {
      flush();
      list = null;
      const h = document.createElement(`h${Math.min(heading[1].length + 1, 6)}`);
      h.append(...inline(heading[2], cite));
      root.append(h);
    } else if (bullet) {
      flush();
      const tag = bullet[1] ? "ol" : "ul";
      if (!list || list.tagName.toLowerCase() !== tag) {
        list = document.createElement(tag);
        root.append(list);
      }
      const li = document.createElement("li");
      li.append(...inline(bullet[2], cite));
      list.append(li);
    } else if (line.startsWith(">")) {
      flush();
      list = null;
      const q = document.createElement("blockquote");
      q.append(...inline(line.replace(/^>\s?/, ""), cite));
      root.append(q);
    } else {
      list = null;
      if (/^\[\d+\]/.test(line.trim())) flush(); // a source-list line "[n] file, place" stands alone
      para.push(line.trim());
    }
  }
  flush();
  return root;
}
