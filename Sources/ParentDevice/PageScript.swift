/// The page's one script, served as `/page.js` (the page's policy runs no inline script): every few seconds it fetches
/// `/waiting` and shows new questions, drops answered ones and refreshes "asked 5 minutes ago", without a reload and
/// without touching a card the parent may be typing a message in.
enum PageScript {
    static let source = #"""
        "use strict";
        (function () {
          const address = "/waiting";
          const baseTitle = document.title.replace(/^\(\d+\) /, "");

          function times(into, from) {
            const fresh = from.querySelectorAll("time");
            into.querySelectorAll("time").forEach(function (element, index) {
              if (!fresh[index]) return;
              element.textContent = fresh[index].textContent;
              element.title = fresh[index].title;
            });
          }

          // Cards keep their place (and a half-typed message); new ones go after the card they follow.
          function merge(current, fresh) {
            const old = new Map();
            for (const element of Array.from(current.children)) old.set(element.id, element);
            const wanted = new Set();
            let previous = null;
            for (const node of Array.from(fresh.children)) {
              wanted.add(node.id);
              let here = old.get(node.id);
              if (here && here.classList.contains("question")) {
                times(here, node);
              } else {
                const added = document.importNode(node, true);
                if (added.classList.contains("question")) added.classList.add("arrived");
                if (here) here.replaceWith(added);
                else if (previous) previous.after(added);
                else current.prepend(added);
                here = added;
              }
              previous = here;
            }
            for (const [id, element] of old) if (!wanted.has(id)) element.remove();
          }

          async function refresh() {
            if (document.hidden) return;
            let response;
            try {
              response = await fetch(address, { credentials: "same-origin", cache: "no-store" });
            } catch (error) {
              return;
            }
            if (!response.ok) return;
            const template = document.createElement("template");
            template.innerHTML = await response.text();
            const cards = template.content.getElementById("cards");
            const count = template.content.getElementById("waiting-count");
            const here = document.getElementById("cards");
            if (!cards || !count || !here) return;
            merge(here, cards);
            document.getElementById("waiting-count").textContent = count.textContent;
            const total = parseInt(count.textContent, 10);
            document.title = (total > 0 ? "(" + total + ") " : "") + baseTitle;
          }

          setInterval(refresh, 3000);
        })();
        """#
}
