// Adds a "Copy" button to every code block on the page. It copies exactly the code: line
// numbers, shell prompts and the output lines of a terminal session are left out. Loaded as
// a file (never inline), so a Content-Security-Policy of `script-src 'self'` allows it.
(function () {
  "use strict";

  // The code as a reader would type it: the <code> element's text without the parts that
  // are not code. Every prompt, number and output span holds its own text (and an output
  // line its newline), so removing them leaves the code byte for byte.
  function codeText(code) {
    var clone = code.cloneNode(true);
    clone.querySelectorAll(".ln, .hl-prompt, .hl-out").forEach(function (el) {
      el.remove();
    });
    return clone.textContent;
  }

  function addButton(pre) {
    var code = pre.querySelector("code");
    if (!code || !navigator.clipboard || pre.parentElement.classList.contains("code-wrap")) {
      return;
    }
    var wrap = document.createElement("div");
    wrap.className = "code-wrap";
    pre.parentElement.insertBefore(wrap, pre);
    wrap.appendChild(pre);
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-code";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy the code to the clipboard");
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(codeText(code)).then(
        function () {
          button.textContent = "Copied";
          setTimeout(function () { button.textContent = "Copy"; }, 1500);
        },
        function () {
          button.textContent = "Select and copy";
        }
      );
    });
    wrap.appendChild(button);
  }

  document.querySelectorAll("pre > code").forEach(function (code) {
    addButton(code.parentElement);
  });
})();
