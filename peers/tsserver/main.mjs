// A small MCP server written with the TypeScript SDK
// (@modelcontextprotocol/sdk, the version peers/ts/package.json pins), kept
// as a real peer for mcpconform to certify. It serves what peers/gosdk
// serves: the tools echo, about, progress (logs, and reports progress on the
// call's token) and count (a structured result with an output schema), one
// resource, one resource template, one prompt, and completions for the
// prompt's argument and the template's variable. ES modules, no build step.
//
// The command line is that of the Go peers (peers/peerhost), so that
// peers/certify.sh runs it as it runs them:
//
//   node main.mjs --transport stdio
//   node main.mjs --transport http [--addr 127.0.0.1:PORT] [--shutdown-grace MS]
//
// Over stdio it serves one session with StdioServerTransport. Over streamable
// HTTP it serves StreamableHTTPServerTransport at /mcp on a loopback address
// (port 0 picks a free one), one transport and McpServer per session with an
// in-memory event store (resumability), in the SDK's createMcpExpressApp
// (Host validation against DNS rebinding), as the SDK's
// simpleStreamableHttp example does; it prints
// {"url":"http://127.0.0.1:PORT/mcp"} once listening and serves until
// SIGTERM, SIGINT or EOF on stdin.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { ErrorCode, isInitializeRequest, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const name = 'ts-server';
const sdkPackage = '@modelcontextprotocol/sdk';
// The SDK's package.json, three folders above its dist/esm/server/mcp.js
// (its exports map gives no path to it).
const sdkVersion = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.resolve(`${sdkPackage}/server/mcp.js`)), 'utf8')).version;
const aboutText = `mcpconform peer built with ${sdkPackage} ${sdkVersion}`;

const aboutURI = 'mcpconform://tssdk/about';
const greetingTemplate = 'mcpconform://tssdk/greeting/{name}';
// names are the values the completions offer for a name.
const names = ['ada', 'alan', 'barbara', 'grace', 'linus'];
// progressSteps is how many progress notifications the progress tool sends.
const progressSteps = 3;
// maxSessions bounds the sessions held at once over HTTP (the memory the
// peer keeps); an initialize beyond it gets 503.
const maxSessions = 256;

// readOnly are the annotations of every tool: none changes or reaches
// anything outside its session, which is what lets mcpconform call them by
// default (readOnlyHint true, openWorldHint false).
const readOnly = { readOnlyHint: true, openWorldHint: false };

const complete = (value) => names.filter((n) => n.startsWith(value ?? ''));

// newServer returns one McpServer with the peer's features; its version is
// the SDK's, which is what a report about this peer is about.
function newServer() {
  const server = new McpServer(
    { name: 'mcpconform-ts-peer', version: sdkVersion },
    { capabilities: { logging: {} } },
  );
  const text = (t) => ({ content: [{ type: 'text', text: t }] });
  server.registerTool(
    'echo',
    { description: 'Returns its text argument (empty when absent).', inputSchema: { text: z.string().optional().describe('the text to echo back') }, annotations: readOnly },
    ({ text: t }) => text(t ?? ''),
  );
  server.registerTool('about', { description: 'Names the SDK this peer is built with; takes no arguments.', annotations: readOnly }, () => text(aboutText));
  // "progress" is the name mcpconform (and the official conformance suite)
  // looks for when a check needs a tool that reports progress.
  server.registerTool(
    'progress',
    { description: "Logs a message and reports progress on the call's progress token, then returns.", annotations: readOnly },
    async (extra) => {
      await server.sendLoggingMessage({ level: 'info', logger: 'progress', data: 'progress started' }, extra.sessionId);
      const token = extra._meta?.progressToken;
      if (token !== undefined) {
        for (let step = 1; step <= progressSteps; step++) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: step, total: progressSteps, message: `step ${step} of ${progressSteps}` },
          });
        }
      }
      return text(`done in ${progressSteps} steps`);
    },
  );
  server.registerTool(
    'count',
    {
      description: 'Counts the words of its text argument; the result is structured.',
      inputSchema: { text: z.string().optional().describe('the text whose words to count') },
      outputSchema: { words: z.number().int().describe('how many words the text has') },
      annotations: readOnly,
    },
    ({ text: t }) => {
      const words = (t ?? '').split(/\s+/).filter(Boolean).length;
      return { ...text(JSON.stringify({ words })), structuredContent: { words } };
    },
  );
  server.registerResource('about', aboutURI, { description: 'Names the SDK this peer is built with.', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: aboutText }],
  }));
  server.registerResource(
    'greeting',
    new ResourceTemplate(greetingTemplate, { list: undefined, complete: { name: complete } }),
    { description: 'A greeting for the name in the URI.', mimeType: 'text/plain' },
    (uri, { name: who }) => {
      if (!who) throw new McpError(ErrorCode.InvalidParams, `no name in ${uri.href}`);
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Hello, ${who}.` }] };
    },
  );
  server.registerPrompt(
    'greet',
    { description: 'Asks the model to greet someone by name.', argsSchema: { name: completable(z.string().describe('who to greet'), complete) } },
    ({ name: who }) => ({ description: 'A greeting', messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${who}.` } }] }),
  );
  return server;
}

// parseArgs reads the peers' command line; a usage error exits 2.
function parseArgs(argv) {
  const opts = { transport: 'stdio', addr: '127.0.0.1:0', grace: 2000 };
  const usage = (msg) => {
    process.stderr.write(`${name}: ${msg}; usage: main.mjs [--transport stdio|http] [--addr 127.0.0.1:PORT] [--shutdown-grace MS]\n`);
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i].replace(/^--?/, '');
    const [key, inline] = flag.split('=', 2);
    const value = () => inline ?? argv[++i] ?? usage(`${argv[i - 1] ?? key} needs a value`);
    switch (key) {
      case 'transport':
        opts.transport = value();
        break;
      case 'addr':
        opts.addr = value();
        break;
      case 'shutdown-grace':
        opts.grace = Number(value());
        if (!Number.isInteger(opts.grace) || opts.grace < 0) usage('--shutdown-grace takes milliseconds');
        break;
      default:
        usage(`unexpected argument ${JSON.stringify(argv[i])}`);
    }
  }
  if (!['stdio', 'http'].includes(opts.transport)) usage(`--transport ${JSON.stringify(opts.transport)}: use stdio or http`);
  const m = /^(.*):(\d+)$/.exec(opts.addr);
  if (!m || isIP(m[1]) !== 4 || !m[1].startsWith('127.')) {
    usage(`--addr ${JSON.stringify(opts.addr)}: the peer listens on a loopback IP only; use 127.0.0.1:PORT`);
  }
  opts.host = m[1];
  opts.port = Number(m[2]);
  return opts;
}

async function serveStdio() {
  const server = newServer();
  await server.connect(new StdioServerTransport());
  // The transport ends the session when stdin ends.
  process.stdin.on('end', () => process.exit(0));
}

function serveHTTP({ host, port, grace }) {
  const sessions = new Map();
  const app = createMcpExpressApp({ host });
  const notFound = (res) => res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
  app.post('/mcp', async (req, res) => {
    const id = req.headers['mcp-session-id'];
    try {
      if (id) {
        const transport = sessions.get(id);
        if (!transport) return notFound(res);
        return await transport.handleRequest(req, res, req.body);
      }
      if (!isInitializeRequest(req.body)) {
        return res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null });
      }
      if (sessions.size >= maxSessions) {
        return res.status(503).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Too many open sessions' }, id: null });
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new InMemoryEventStore(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await newServer().connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      process.stderr.write(`${name}: ${err?.stack ?? err}\n`);
      if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
    }
  });
  const bySession = async (req, res) => {
    const id = req.headers['mcp-session-id'];
    if (!id) return res.status(400).send('Missing session ID');
    const transport = sessions.get(id);
    if (!transport) return notFound(res);
    await transport.handleRequest(req, res);
  };
  app.get('/mcp', bySession);
  app.delete('/mcp', bySession);

  const listener = app.listen(port, host, (err) => {
    if (err) {
      process.stderr.write(`${name}: listen: ${err.message}\n`);
      process.exit(1);
    }
    process.stdout.write(JSON.stringify({ url: `http://${host}:${listener.address().port}/mcp` }) + '\n');
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    listener.close();
    setTimeout(() => process.exit(0), grace).unref();
    for (const transport of sessions.values()) await transport.close().catch(() => {});
    listener.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // EOF on stdin is the parent's way to say "stop".
  process.stdin.on('end', stop);
  process.stdin.resume();
}

const opts = parseArgs(process.argv.slice(2));
if (opts.transport === 'stdio') {
  await serveStdio();
} else {
  serveHTTP(opts);
}
