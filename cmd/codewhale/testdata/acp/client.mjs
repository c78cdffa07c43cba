// A real ACP client for codewhale's end-to-end tests: the protocol's own
// TypeScript SDK (@agentclientprotocol/sdk, installed by
// scripts/install-acp-client.sh) drives `codewhale acp` through one scenario
// and prints what it saw as one JSON object on stdout.
//
// node client.mjs SCENARIO — with ACP_SDK (the package's directory),
// ACP_BIN (the codewhale binary), ACP_CWD (the workspace) and, per
// scenario, ACP_ANSWER (the permission option to pick), ACP_SESSION (a
// session to load).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { readFileSync, writeFileSync } from "node:fs";

const acp = await import(pathToFileURL(process.env.ACP_SDK + "/dist/v1/stable/acp.js").href);
const scenario = process.argv[2];
const cwd = process.env.ACP_CWD;
const args = ["acp", ...(process.env.ACP_ARGS ? process.env.ACP_ARGS.split(" ") : [])];
const child = spawn(process.env.ACP_BIN, args, { cwd, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const seen = { updates: [], permissions: [], reads: [], writes: [] };
const fs = scenario === "fs";

const app = acp.client({ name: "codewhale-e2e" })
  .onNotification(acp.methods.client.session.update, ({ params }) => { seen.updates.push(params.update); })
  .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
    seen.permissions.push(params);
    if (process.env.ACP_ANSWER === "never") {
      return new Promise(() => {}); // a client that never answers
    }
    return { outcome: { outcome: "selected", optionId: process.env.ACP_ANSWER || "deny" } };
  })
  .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
    seen.reads.push(params);
    // The editor's buffer: what is on disk plus an edit not yet saved.
    return { content: readFileSync(params.path, "utf8") + "unsaved line from the editor\n" };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
    seen.writes.push(params);
    writeFileSync(params.path, params.content);
    return {};
  });

const text = (from) => seen.updates.slice(from).filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");

async function prompt(cx, sessionId, words) {
  const from = seen.updates.length;
  const r = await cx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: words }] });
  return { stopReason: r.stopReason, text: text(from) };
}

const started = Date.now();
const out = await app.connectWith(stream, async (cx) => {
  const init = await cx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs } },
  });
  const initMs = Date.now() - started;
  if (scenario === "load") {
    const from = seen.updates.length;
    const loaded = await cx.request(acp.methods.agent.session.load, { sessionId: process.env.ACP_SESSION, cwd, mcpServers: [] });
    const replay = seen.updates.slice(from);
    const again = await prompt(cx, process.env.ACP_SESSION, "and again");
    return { init, loaded, replay, again };
  }
  const mcpServers = JSON.parse(process.env.ACP_MCP || "[]");
  const sess = await cx.request(acp.methods.agent.session.new, { cwd, mcpServers });
  const sessionId = sess.sessionId;
  if (scenario === "basic") {
    const first = await prompt(cx, sessionId, "say hello");
    // Cancel once the second answer has started streaming.
    const from = seen.updates.length;
    const p = cx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "a long story" }] });
    while (!seen.updates.slice(from).some((u) => u.sessionUpdate === "agent_message_chunk")) {
      await new Promise((r) => setTimeout(r, 5));
    }
    await cx.notify(acp.methods.agent.session.cancel, { sessionId });
    const cancelled = await p;
    return { init, initMs, sessionId, modes: sess.modes, first, cancelled: { stopReason: cancelled.stopReason, text: text(from) } };
  }
  if (scenario === "mode") {
    await cx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
    const turn = await prompt(cx, sessionId, "plan something");
    return { init, sessionId, modes: sess.modes, turn };
  }
  if (scenario === "image") {
    const from = seen.updates.length;
    const r = await cx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [
      { type: "text", text: "what is this?" },
      { type: "image", mimeType: "image/png", data: process.env.ACP_IMAGE },
    ] });
    return { init, sessionId, turn: { stopReason: r.stopReason, text: text(from) } };
  }
  const turn = await prompt(cx, sessionId, "do the thing");
  return { init, sessionId, modes: sess.modes, turn };
});
child.stdin.end();
process.stdout.write(JSON.stringify({ ...out, ...seen }) + "\n");
process.exit(0);
