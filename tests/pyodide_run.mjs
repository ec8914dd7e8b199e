// Runs Python in Pyodide under Node.js: the code on stdin, the value of its last
// expression (a string) printed on stdout. Battle Ledger's rules core is mounted from
// the work tree (argv[3]) as the package battle_ledger.rulesets (copied in); nothing is
// fetched.
// Usage: node tests/pyodide_run.mjs PYODIDE_FOLDER REPO < code.py
import { readdirSync, readFileSync, statSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [folder, repo] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${folder}/pyodide.mjs`).href);
const py = await loadPyodide({ indexURL: folder });
// Copied into Pyodide's own (in-memory) file system, not mounted: a folder made inside a
// mount would be made in the work tree (rulesets inside package).
function copyTree(outside, inside) {
  py.FS.mkdirTree(inside);
  for (const name of readdirSync(outside)) {
    const path = `${outside}/${name}`;
    if (statSync(path).isDirectory()) {
      if (name !== "__pycache__") copyTree(path, `${inside}/${name}`);
    } else {
      py.FS.writeFile(`${inside}/${name}`, readFileSync(path));
    }
  }
}
copyTree(`${repo}/package`, "/pkg/battle_ledger");
copyTree(`${repo}/rulesets`, "/pkg/battle_ledger/rulesets");
py.runPython("import sys; sys.path.insert(0, '/pkg'); sys.dont_write_bytecode = True");
console.log(await py.runPythonAsync(readFileSync(0, "utf8")));
