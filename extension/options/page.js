// What every section of the options page builds with: elements, and the status line that
// says "Saved." (or what went wrong) where the change was made. Each section of the page is
// its own module filling its own <section> of options.html: a new section is a new file and
// one <section> and <script> line there.
export function element(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

// A live status line: saved(text) in the quiet colour, failed(text) as an error.
export function statusLine(id) {
  const node = element("p", { id, className: "status", role: "status" });
  return {
    node,
    saved(text = "Saved.") {
      node.textContent = text;
      node.classList.remove("error");
    },
    failed(text) {
      node.textContent = text;
      node.classList.add("error");
    },
  };
}

// A section's heading, its one-line explanation and its content, labelled by the heading.
export function fillSection(section, heading, hint, ...content) {
  const title = element("h2", { id: `${section.id}-heading`, textContent: heading });
  section.setAttribute("aria-labelledby", title.id);
  section.replaceChildren(title, ...(hint ? [element("p", { className: "hint", textContent: hint })] : []), ...content);
}

// An inline error under a field: shown (and the field marked invalid) or cleared.
export function fieldError(input, errorNode, text) {
  errorNode.textContent = text || "";
  errorNode.hidden = !text;
  if (text) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
}
