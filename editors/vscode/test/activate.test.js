// Loads extension.js with stand-ins for `vscode` and `vscode-languageclient/node` (no VS Code, no
// npm install) and checks what it asks of them: the server command, the documents, the settings.
"use strict";
const assert = require("assert");
const Module = require("module");
const path = require("path");

const config = { command: ["/venv/bin/trainlint", "server"], lang: "zh", select: [], ignore: ["API101"],
                 extendSelect: [], targetVersion: ["mindspore=2.3"], rules: [], infoSeverity: "hint" };
const made = [];
const commands = {};
class LanguageClient {
  constructor(id, name, serverOptions, clientOptions) {
    Object.assign(this, { id, name, serverOptions, clientOptions, started: 0, stopped: 0 });
    made.push(this);
  }
  async start() { this.started += 1; }
  async stop() { this.stopped += 1; }
}
const vscode = {
  workspace: {
    getConfiguration: (section) => { assert.strictEqual(section, "trainlint"); return { get: (k) => config[k] }; },
    onDidChangeConfiguration: () => ({ dispose() {} }),
  },
  commands: {
    registerCommand: (name, fn) => { commands[name] = fn; return { dispose() {} }; },
    executeCommand: (name) => commands[name](),
  },
};
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === "vscode") return vscode;
  if (request === "vscode-languageclient/node") return { LanguageClient };
  return load.call(this, request, parent, isMain);
};

(async () => {
  const ext = require(path.join(__dirname, "..", "extension.js"));
  const context = { subscriptions: [] };
  await ext.activate(context);
  assert.strictEqual(made.length, 1);
  const c = made[0];
  assert.deepStrictEqual(c.serverOptions.run, { command: "/venv/bin/trainlint", args: ["server"] });
  assert.deepStrictEqual(c.clientOptions.documentSelector, [
    { scheme: "file", language: "python" }, { notebook: "jupyter-notebook", language: "python" }]);
  // empty settings are left to the project's config; the server's key names
  assert.deepStrictEqual(c.clientOptions.initializationOptions,
                         { lang: "zh", ignore: ["API101"], target_version: ["mindspore=2.3"], info_severity: "hint" });
  assert.strictEqual(c.clientOptions.synchronize.configurationSection, "trainlint");
  assert.strictEqual(c.started, 1);
  await commands["trainlint.restart"]();
  assert.strictEqual(made.length, 2);
  assert.strictEqual(c.stopped, 1);
  assert.strictEqual(made[1].started, 1);
  await ext.deactivate();
  assert.strictEqual(made[1].stopped, 1);
  console.log("ok: activate, restart, deactivate");
})().catch((e) => { console.error(e); process.exit(1); });
