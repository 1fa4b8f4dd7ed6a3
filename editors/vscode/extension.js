// trainlint for VS Code: starts `trainlint server` (the Language Server Protocol over stdio) and
// hands it the Python files and notebooks. Everything else — diagnostics, quick fixes, hover docs,
// fix-all on save — comes from the server; this file only wires VS Code's LSP client to it.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client = null;

/** The `trainlint.*` settings as the server's initializationOptions (empty values left out:
 *  the project's pyproject.toml/trainlint.toml decides). */
function settings() {
  const c = vscode.workspace.getConfiguration("trainlint");
  const out = {};
  for (const [key, name] of [["lang", "lang"], ["select", "select"], ["extendSelect", "extend_select"],
                             ["ignore", "ignore"], ["targetVersion", "target_version"], ["rules", "rules"],
                             ["infoSeverity", "info_severity"]]) {
    const v = c.get(key);
    if (Array.isArray(v) ? v.length : v) out[name] = v;
  }
  return out;
}

function makeClient() {
  const cmd = vscode.workspace.getConfiguration("trainlint").get("command") || ["trainlint", "server"];
  const server = { command: cmd[0], args: cmd.slice(1) };
  return new LanguageClient("trainlint", "trainlint", { run: server, debug: server }, {
    documentSelector: [
      { scheme: "file", language: "python" },
      { notebook: "jupyter-notebook", language: "python" },
    ],
    initializationOptions: settings(),
    synchronize: { configurationSection: "trainlint" },
  });
}

async function activate(context) {
  client = makeClient();
  context.subscriptions.push(vscode.commands.registerCommand("trainlint.restart", async () => {
    if (client) await client.stop();
    client = makeClient();
    await client.start();
  }));
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
    // the server command itself changed: a new server; other settings reach it as
    // workspace/didChangeConfiguration through `synchronize`
    if (e.affectsConfiguration("trainlint.command")) vscode.commands.executeCommand("trainlint.restart");
  }));
  await client.start();
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate, settings };
