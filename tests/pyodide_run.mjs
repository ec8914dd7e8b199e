// Runs Python in Pyodide under Node.js: the code on stdin, the value of its last
// expression (a string) printed on stdout. Battle Ledger's rules core is mounted from
// the work tree (argv[3]) as the package battle_ledger.rulesets; nothing is fetched.
// Usage: node tests/pyodide_run.mjs PYODIDE_FOLDER REPO < code.py
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [folder, repo] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${folder}/pyodide.mjs`).href);
const py = await loadPyodide({ indexURL: folder });
for (const [inside, outside] of [["battle_ledger", "package"], ["battle_ledger/rulesets", "rulesets"]]) {
  py.FS.mkdirTree(`/pkg/${inside}`);
  py.FS.mount(py.FS.filesystems.NODEFS, { root: `${repo}/${outside}` }, `/pkg/${inside}`);
}
py.runPython("import sys; sys.path.insert(0, '/pkg'); sys.dont_write_bytecode = True");
console.log(await py.runPythonAsync(readFileSync(0, "utf8")));
