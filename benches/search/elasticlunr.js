// The elasticlunr alternative (mdBook's search), measured on the same corpus: builds the
// index of every entry's term, title, summary and body, reports the size of the JSON the
// browser would download, and times loading it and answering the queries.
//   node benches/search/elasticlunr.js CONTENT_DIR word...   (needs `npm install elasticlunr`)
"use strict";
const fs = require("fs");
const path = require("path");
const elasticlunr = require("elasticlunr");

function* walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (p.endsWith(".md")) yield p;
  }
}

const [content, ...words] = process.argv.slice(2);
let t = performance.now();
const index = elasticlunr(function () {
  this.addField("title");
  this.addField("body");
  this.setRef("id");
  this.saveDocument(false);
});
let n = 0;
for (const file of walk(content)) {
  const text = fs.readFileSync(file, "utf8");
  const [, front, ...rest] = text.split("---");
  const field = (k) => ((front.match(new RegExp("^" + k + ": (.*)$", "m")) || [])[1] || "").replace(/^"|"$/g, "");
  index.addDoc({ id: file, title: field("term") + " " + field("title"), body: field("summary") + " " + rest.join("---") });
  n += 1;
}
const built = performance.now() - t;
const json = JSON.stringify(index.toJSON());
t = performance.now();
const loaded = elasticlunr.Index.load(JSON.parse(json));
const load = performance.now() - t;
console.log(`elasticlunr: ${n} entries, index built in ${(built / 1000).toFixed(1)} s, ` +
  `${(json.length / 1048576).toFixed(1)} MiB of JSON (loaded whole before the first query), parsed and loaded in ${load.toFixed(0)} ms`);
for (const w of words) {
  t = performance.now();
  const hits = loaded.search(w, { expand: true });
  console.log(`  query ${JSON.stringify(w)}: ${hits.length} hits in ${(performance.now() - t).toFixed(1)} ms`);
}
