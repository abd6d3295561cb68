// The Python interpreter the node tests compare the widget and search scripts
// with: one that imports this repository's site_builder and its dependencies.
// No environment variable is needed: $PYTHON is tried first when set, then a
// virtual environment in the repository, python3 and python on PATH, then the
// interpreters a machine keeps outside PATH (pyenv's, conda's, /usr/local's).
// On a machine where /usr/bin/python3 lacks the packages but another Python
// has them (PATH=/usr/bin:/bin node --test tests/js), the first one that
// imports them is used. Each is asked once per test file.
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

const ROOT = path.resolve(__dirname, "..", "..");
const PROBE = "import site_builder.outputs.search_index, site_builder.explainers.speculative_decoding.serving_panel";

function versions(folder) {
  // pyenv's versions/3.12.1 etc., newest first
  let names = [];
  try { names = fs.readdirSync(folder); } catch { return []; }
  const key = (name) => name.split(/[.-]/).map((part) => part.padStart(6, "0")).join(".");
  return names.sort((a, b) => (key(a) < key(b) ? 1 : -1)).map((name) => path.join(folder, name, "bin", "python3"));
}

/** Interpreters to try, in order. */
function candidates() {
  const home = os.homedir();
  const bin = process.platform === "win32" ? ["Scripts", "python.exe"] : ["bin", "python"];
  const list = [];
  if (process.env.PYTHON) list.push(process.env.PYTHON);
  if (process.env.VIRTUAL_ENV) list.push(path.join(process.env.VIRTUAL_ENV, ...bin));
  for (const venv of [".venv", "venv", "env"]) list.push(path.join(ROOT, venv, ...bin));
  list.push("python3", "python");
  list.push(path.join(home, ".pyenv", "shims", "python3"), ...versions(path.join(home, ".pyenv", "versions")));
  list.push("/usr/local/bin/python3", "/opt/conda/bin/python", path.join(home, "miniconda3", "bin", "python"),
    path.join(home, "anaconda3", "bin", "python"), "/usr/bin/python3");
  return [...new Set(list)];
}

function works(exe) {
  try {
    execFileSync(exe, ["-c", PROBE], { cwd: ROOT, env: { ...process.env, PYTHONPATH: ROOT }, stdio: "ignore", timeout: 60000 });
    return true;
  } catch {
    return false;
  }
}

let found = null;
/** The path (or PATH name) of a Python that imports site_builder and its dependencies. */
function pythonExecutable() {
  if (found) return found;
  const tried = candidates();
  found = tried.find(works);
  if (!found) {
    throw new Error("no Python here imports site_builder's dependencies; tried " + tried.join(", ")
      + ". Install them (python3 -m pip install -e '.[test]') or name the interpreter in $PYTHON.");
  }
  return found;
}

/** Run a Python snippet in the repository (stdin: `input`) and return what it prints. */
function runPython(code, input) {
  return execFileSync(pythonExecutable(), ["-c", code], {
    cwd: ROOT, input, env: { ...process.env, PYTHONPATH: ROOT }, encoding: "utf8", maxBuffer: 64 * 1024 * 1024,
  });
}

module.exports = { pythonExecutable, runPython, candidates };
